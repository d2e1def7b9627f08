#include "native_diff.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <cstdint>

#include "analysis_arguments.h"
#include "errors.h"
#include "output.h"
#include "stepscope/report.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace stepscope_python {

namespace {

// The CLI's bounds for --resamples.
constexpr int kMinResamples = 100;
constexpr int kMaxResamples = 1000000;

NativeDiff compare(const std::string& before, const std::string& after,
                   const AnalysisArguments& arguments, std::uint64_t seed, int resamples) {
  if (resamples < kMinResamples || resamples > kMaxResamples) {
    raise_bad_option("resamples must be between 100 and 1000000");
  }
  stepscope::DiffRequest request;
  request.before = before;
  request.after = after;
  apply(arguments, request.analysis, request.load);
  request.top = arguments.top;
  request.seed = seed;
  request.resamples = resamples;
  stepscope::Result<stepscope::DiffResult> result = [&] {
    nb::gil_scoped_release release;
    return stepscope::compare_runs(request);
  }();
  return NativeDiff(value_or_raise(std::move(result)));
}

}  // namespace

std::string NativeDiff::to_json(std::optional<int> indent) const {
  if (indent && *indent < 0) raise_bad_option("indent must be None or at least 0");
  nb::gil_scoped_release release;
  std::string json = stepscope::render_diff_json(result_);
  return indent ? stepscope::indent_json(json, *indent) : json;
}

std::string NativeDiff::to_text(std::optional<int> top) const {
  const int rows = top.value_or(result_.top);
  if (rows < 1) raise_bad_option("top must be at least 1");
  nb::gil_scoped_release release;
  return stepscope::render_diff_text(result_, rows);
}

std::string NativeDiff::to_html() const {
  nb::gil_scoped_release release;
  return stepscope::render_diff_html(result_);
}

void NativeDiff::write(const std::string& path, const std::string& content) const {
  write_output({result_.before.path, result_.after.path}, path, content);
}

std::string NativeDiff::write_json(const std::string& path, std::optional<int> indent) const {
  std::string json = to_json(indent);
  write(path, json);
  return json;
}

std::string NativeDiff::write_text(const std::string& path, std::optional<int> top) const {
  std::string text = to_text(top);
  write(path, text);
  return text;
}

std::string NativeDiff::write_html(const std::string& path) const {
  std::string html = to_html();
  write(path, html);
  return html;
}

std::string NativeDiff::verdict() const {
  return std::string(stepscope::to_string(result_.steps.verdict));
}

bool NativeDiff::slower_beyond(double percent) const {
  if (!(percent >= 0) || !std::isfinite(percent)) {
    raise_bad_option("the slower-than threshold must be a percentage of at least 0");
  }
  return stepscope::slower_beyond(result_, percent);
}

nb::dict NativeDiff::step_change() const {
  const stepscope::StepComparison& s = result_.steps;
  nb::dict out;
  out["before_mean_ns"] = s.before_mean_ns;
  out["after_mean_ns"] = s.after_mean_ns;
  out["change_share"] = s.change_share;
  out["ratio"] = s.ratio;
  out["ratio_low"] = s.ratio_low;
  out["ratio_high"] = s.ratio_high;
  out["confidence"] = s.confidence;
  return out;
}

void bind_native_diff(nb::module_& m) {
  nb::class_<NativeDiff>(m, "NativeDiff",
                         "The comparison of two runs held by the library: render or write it "
                         "without reading the traces again.")
      .def("to_json", &NativeDiff::to_json, "indent"_a = nb::none(),
           "The comparison as JSON (schema stepscope.diff), as `stepscope diff --json` writes it.")
      .def("to_text", &NativeDiff::to_text, "top"_a = nb::none(), "The terminal report.")
      .def("to_html", &NativeDiff::to_html, "The self-contained HTML page.")
      .def("write_json", &NativeDiff::write_json, "path"_a, "indent"_a = nb::none(),
           "Write to_json() to path atomically; returns the text written.")
      .def("write_text", &NativeDiff::write_text, "path"_a, "top"_a = nb::none(),
           "Write to_text() to path atomically; returns the text written.")
      .def("write_html", &NativeDiff::write_html, "path"_a,
           "Write to_html() to path atomically; returns the page written.")
      .def_prop_ro("verdict", &NativeDiff::verdict,
                   "faster, slower, no significant change or undetermined.")
      .def("slower_beyond", &NativeDiff::slower_beyond, "percent"_a,
           "Whether the after run is slower than percent % with 95 % confidence.")
      .def("step_change", &NativeDiff::step_change,
           nb::sig("def step_change(self) -> dict[str, float]"),
           "Mean step times (ns), the change as a share, the ratio after / before and its "
           "interval.");

  m.def(
      "diff",
      [](const std::string& before, const std::string& after, const std::string& mode,
         std::optional<std::int64_t> rank,
         std::optional<std::pair<std::int64_t, std::int64_t>> steps, int top, bool skip_bad,
         int threads, bool group_by_shape, bool hta_rounding, std::uint64_t seed, int resamples) {
        return compare(before, after,
                       AnalysisArguments{mode, rank, steps, top, skip_bad, threads, group_by_shape,
                                         hta_rounding},
                       seed, resamples);
      },
      "before"_a, "after"_a, "mode"_a = "native", "rank"_a = nb::none(), "steps"_a = nb::none(),
      "top"_a = 10, "skip_bad"_a = false, "threads"_a = 0, "group_by_shape"_a = false,
      "hta_rounding"_a = true, "seed"_a = 1, "resamples"_a = 10000,
      "Compare two runs (trace files or folders) without the GIL. Raises a TraceError "
      "subclass on bad input.");
}

}  // namespace stepscope_python
