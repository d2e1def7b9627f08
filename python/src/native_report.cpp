#include "native_report.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <filesystem>
#include <utility>

#include "errors.h"
#include "finding_dicts.h"
#include "output.h"
#include "stepscope/annotate.h"
#include "stepscope/output_check.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace stepscope_python {

NativeReport NativeReport::analyze(const std::string& path, const AnalysisArguments& arguments) {
  stepscope::AnalyzeRequest request;
  request.path = path;
  apply(arguments, request.analysis, request.load);
  stepscope::Result<stepscope::ReportPtr> report = [&] {
    nb::gil_scoped_release release;
    return stepscope::analyze(request);
  }();
  return {value_or_raise(std::move(report)), arguments.top};
}

int NativeReport::top_or_default(std::optional<int> top) const {
  if (!top) return top_;
  if (*top < 1) raise_bad_option("top must be at least 1");
  return *top;
}

std::string NativeReport::to_json(std::optional<int> indent) const {
  if (indent && *indent < 0) raise_bad_option("indent must be None or at least 0");
  nb::gil_scoped_release release;
  std::string json = stepscope::render_json(*report_);  // ends in a newline, as the CLI writes
  return indent ? stepscope::indent_json(json, *indent) : json;
}

std::string NativeReport::to_text(std::optional<int> top, std::size_t width) const {
  const int rows = top_or_default(top);
  if (width < 40) raise_bad_option("width must be at least 40 columns");
  nb::gil_scoped_release release;
  return stepscope::render_text(*report_, stepscope::TextOptions{rows, width});
}

std::string NativeReport::to_html(std::optional<int> top) const {
  const int rows = top_or_default(top);
  nb::gil_scoped_release release;
  return stepscope::render_html(*report_, rows);
}

std::string NativeReport::what_if_json(std::optional<double> loader_left, bool no_syncs,
                                       std::optional<double> launch_us,
                                       const std::vector<std::string>& ops,
                                       const std::vector<std::string>& kernels,
                                       bool tensor_cores) const {
  stepscope::WhatIfChange change;
  if (loader_left) {
    if (*loader_left < 0 || *loader_left > 1) raise_bad_option("loader must be between 0 and 1");
    change.loader_left = *loader_left;
  }
  change.no_syncs = no_syncs;
  if (launch_us) {
    if (*launch_us < 0) raise_bad_option("launch_us must be at least 0");
    change.launch_ns = static_cast<std::int64_t>(*launch_us * 1e3);
  }
  for (const std::string& op : ops) {
    change.ops.push_back(value_or_raise(stepscope::parse_op_speedup(op)));
  }
  for (const std::string& kernel : kernels) {
    change.kernels.push_back(value_or_raise(stepscope::parse_kernel_speedup(kernel)));
  }
  change.tensor_cores = tensor_cores;
  if (change.empty()) {
    raise_bad_option(
        "nothing to change: give loader, no_syncs, launch_us, ops, kernels or "
        "tensor_cores");
  }
  stepscope::Result<stepscope::WhatIfResult> result = [&] {
    nb::gil_scoped_release release;
    return stepscope::report_what_if(*report_, change, top_);
  }();
  return stepscope::render_what_if_json(value_or_raise(std::move(result)));
}

void NativeReport::write(const std::string& path, const std::string& content) const {
  write_output({input_path()}, path, content);
}

std::string NativeReport::write_json(const std::string& path, std::optional<int> indent) const {
  std::string json = to_json(indent);
  write(path, json);
  return json;
}

std::string NativeReport::write_text(const std::string& path, std::optional<int> top,
                                     std::size_t width) const {
  std::string text = to_text(top, width);
  write(path, text);
  return text;
}

std::string NativeReport::write_html(const std::string& path, std::optional<int> top) const {
  std::string html = to_html(top);
  write(path, html);
  return html;
}

nb::list NativeReport::findings() const {
  return finding_dicts(stepscope::report_findings(*report_));
}

// The checks `stepscope analyze --annotate` makes before writing.
void NativeReport::annotate(const std::string& out_path) const {
  if (out_path.empty() || out_path == "-") raise_bad_option("annotate needs a file name");
  std::error_code error;
  if (std::filesystem::is_directory(input_path(), error)) {
    raise_bad_option(input_path() + ": annotate takes a single trace file, not a folder");
  }
  nb::gil_scoped_release release;
  ok_or_raise(stepscope::check_output_paths({input_path()}, {{"annotate", out_path}}));
  ok_or_raise(stepscope::write_annotated_report(*report_, out_path));
}

const std::string& NativeReport::input_path() const {
  return stepscope::report_input_path(*report_);
}

void bind_native_report(nb::module_& m) {
  nb::class_<NativeReport>(m, "NativeReport",
                           "One analysis held by the library: render or write it any number of "
                           "times without reading the trace again.")
      .def_prop_ro("input_path", &NativeReport::input_path, "The trace file or folder analysed.")
      .def_prop_ro("top", &NativeReport::top, "Rows in top-N tables unless a call says otherwise.")
      .def("to_json", &NativeReport::to_json, "indent"_a = nb::none(),
           "The JSON document (schema stepscope.analyze); compact unless indent is given.")
      .def("to_text", &NativeReport::to_text, "top"_a = nb::none(),
           "width"_a = stepscope::TextOptions{}.width,
           "The terminal report, no line longer than `width` columns.")
      .def("to_html", &NativeReport::to_html, "top"_a = nb::none(),
           "The self-contained HTML report.")
      .def("write_json", &NativeReport::write_json, "path"_a, "indent"_a = nb::none(),
           "Write to_json() to path atomically; returns the text written.")
      .def("write_text", &NativeReport::write_text, "path"_a, "top"_a = nb::none(),
           "width"_a = stepscope::TextOptions{}.width,
           "Write to_text() to path atomically; returns the text written.")
      .def("write_html", &NativeReport::write_html, "path"_a, "top"_a = nb::none(),
           "Write to_html() to path atomically; returns the page written.")
      .def("findings", &NativeReport::findings,
           nb::sig("def findings(self) -> list[dict[str, typing.Any]]"),
           "Every rank's findings as dicts with the JSON document's keys (times in µs), in rank "
           "order.")
      .def("what_if_json", &NativeReport::what_if_json, "loader"_a = nb::none(),
           "no_syncs"_a = false, "launch_us"_a = nb::none(), "ops"_a = std::vector<std::string>{},
           "kernels"_a = std::vector<std::string>{}, "tensor_cores"_a = false,
           "The first rank's kept steps re-timed under a change (`stepscope whatif`), as JSON.")
      .def("annotate", &NativeReport::annotate, "out_path"_a,
           "Write the trace with the findings as markers (gzip when out_path ends in .gz), as "
           "`stepscope analyze TRACE --annotate OUT` does.");

  m.def(
      "analyze",
      [](const std::string& path, const std::string& mode, std::optional<std::int64_t> rank,
         std::optional<std::pair<std::int64_t, std::int64_t>> steps, int top, bool skip_bad,
         int threads, bool group_by_shape, bool hta_rounding) {
        return NativeReport::analyze(
            path, AnalysisArguments{mode, rank, steps, top, skip_bad, threads, group_by_shape,
                                    hta_rounding});
      },
      "path"_a, "mode"_a = "native", "rank"_a = nb::none(), "steps"_a = nb::none(), "top"_a = 10,
      "skip_bad"_a = false, "threads"_a = 0, "group_by_shape"_a = false, "hta_rounding"_a = true,
      "Analyse a trace file or folder once, without the GIL. Raises a TraceError subclass on "
      "bad input.");
}

}  // namespace stepscope_python
