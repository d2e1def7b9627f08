// stepscope._core.NativeReport: one analysis held as the library's Report. Every rendering and
// every file written comes from it; nothing re-reads the trace except annotate(), which copies
// the original trace through with the findings added.
#pragma once

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <vector>

#include "analysis_arguments.h"
#include "stepscope/report.h"

namespace stepscope_python {

class NativeReport {
 public:
  NativeReport(stepscope::ReportPtr report, int top) : report_(std::move(report)), top_(top) {}

  // Analyses without the GIL.
  static NativeReport analyze(const std::string& path, const AnalysisArguments& arguments);

  [[nodiscard]] std::string to_json(std::optional<int> indent) const;
  [[nodiscard]] std::string to_text(std::optional<int> top, std::size_t width) const;
  [[nodiscard]] std::string to_html(std::optional<int> top) const;
  // Write through the atomic writer and return what was written.
  std::string write_json(const std::string& path, std::optional<int> indent) const;
  std::string write_text(const std::string& path, std::optional<int> top, std::size_t width) const;
  std::string write_html(const std::string& path, std::optional<int> top) const;
  [[nodiscard]] nanobind::list findings() const;
  // `stepscope whatif`: the first rank's kept steps re-timed under a change, as JSON.
  [[nodiscard]] std::string what_if_json(std::optional<double> loader_left, bool no_syncs,
                                         std::optional<double> launch_us,
                                         const std::vector<std::string>& ops,
                                         const std::vector<std::string>& kernels,
                                         bool tensor_cores) const;
  // `stepscope analyze TRACE --annotate OUT`: the trace with the findings as markers.
  void annotate(const std::string& out_path) const;
  [[nodiscard]] const std::string& input_path() const;
  [[nodiscard]] int top() const { return top_; }

 private:
  [[nodiscard]] int top_or_default(std::optional<int> top) const;
  void write(const std::string& path, const std::string& content) const;

  stepscope::ReportPtr report_;
  int top_;  // the top the analysis was asked for: the default of every rendering
};

void bind_native_report(nanobind::module_& m);

}  // namespace stepscope_python
