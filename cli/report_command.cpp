#include "report_command.h"

#include <fmt/core.h>

namespace stepscope::cli {

void add_report_command(CLI::App& app, ReportArguments& a) {
  CLI::App* command = app.add_subcommand(
      "report", "Write a self-contained HTML report of a trace file or folder (opens offline)");
  add_analysis_options(*command, a.analysis);
  command->add_option("-o,--output", a.output, "the HTML file to write ('-': stdout)")
      ->capture_default_str();
}

int run_report(const ReportArguments& a) {
  ReportPtr report = analyze_with_progress(a.analysis);
  if (!report) return 2;
  if (Status s = write_output_file(a.output, render_html(*report, a.analysis.top)); !s) {
    fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
    return 2;
  }
  if (!a.analysis.quiet && a.output != "-") fmt::print(stderr, "wrote {}\n", a.output);
  return 0;
}

}  // namespace stepscope::cli
