// The job analysis for Python: summarise one rank (map) and merge summaries (reduce). Failures
// come back as (False, message) so that the Python layer raises its TraceError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "stepscope/job/job_report.h"

namespace nb = nanobind;

void bind_job(nb::module_& m) {
  m.def(
      "summarize_json",
      [](const std::string& path, const std::string& mode) {
        stepscope::AnalysisOptions analysis;
        const auto parsed = stepscope::parse_mode(mode);
        if (!parsed) return std::make_tuple(false, "unknown mode '" + mode + "'");
        analysis.mode = *parsed;
        stepscope::Result<std::string> summary = [&] {
          nb::gil_scoped_release release;
          return stepscope::job::summarize_file(path, analysis);
        }();
        if (!summary) return std::make_tuple(false, summary.error().describe());
        return std::make_tuple(true, std::move(summary).value());
      },
      nb::arg("path"), nb::arg("mode") = "native",
      "One rank's summary as JSON text: (True, text) or (False, error).");
  m.def(
      "merge_json",
      [](const std::vector<std::string>& texts, const std::vector<std::string>& names,
         std::optional<std::int64_t> run) {
        stepscope::Result<stepscope::job::JobAnalysis> job = stepscope::job::merge_summaries(
            texts, names, stepscope::job::JobOptions{run, std::nullopt});
        if (!job) return std::make_tuple(false, job.error().describe(), std::string());
        return std::make_tuple(true, stepscope::job::render_job_json(*job),
                               stepscope::job::render_job_text(*job, 10));
      },
      nb::arg("texts"), nb::arg("names"), nb::arg("run") = nb::none(),
      "The job from summary texts: (True, json, text) or (False, error, '').");
}
