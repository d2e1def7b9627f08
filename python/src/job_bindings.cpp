// The job analysis for Python: summarise one rank (map) and merge summaries (reduce). Failures
// raise the TraceError subclass of their kind (errors.h), naming the file at fault.
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

#include "errors.h"
#include "stepscope/job/job_report.h"

namespace nb = nanobind;
using stepscope_python::raise_bad_option;
using stepscope_python::value_or_raise;

void bind_job(nb::module_& m) {
  m.def(
      "summarize_json",
      [](const std::string& path, const std::string& mode) {
        stepscope::AnalysisOptions analysis;
        const auto parsed = stepscope::parse_mode(mode);
        if (!parsed) raise_bad_option("unknown mode '" + mode + "'");
        analysis.mode = *parsed;
        return value_or_raise([&] {
          nb::gil_scoped_release release;
          return stepscope::job::summarize_file(path, analysis);
        }());
      },
      nb::arg("path"), nb::arg("mode") = "native",
      "One rank's summary as JSON text; raises the TraceError subclass of what went wrong.");
  m.def(
      "merge_json",
      [](const std::vector<std::string>& texts, const std::vector<std::string>& names,
         std::optional<std::int64_t> run) {
        const stepscope::job::JobAnalysis job = value_or_raise(stepscope::job::merge_summaries(
            texts, names, stepscope::job::JobOptions{run, std::nullopt}));
        return std::make_tuple(stepscope::job::render_job_json(job),
                               stepscope::job::render_job_text(job, 10));
      },
      nb::arg("texts"), nb::arg("names"), nb::arg("run") = nb::none(),
      "The job from summary texts: (json, text); raises the TraceError subclass naming the "
      "summary at fault.");
}
