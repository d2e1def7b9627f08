#include "report_command.h"

#include <fmt/core.h>

#include "stepscope/live/timeline_document.h"
#include "stepscope/output_check.h"

namespace stepscope::cli {

void add_report_command(CLI::App& app, ReportArguments& a) {
  CLI::App* command = app.add_subcommand(
      "report",
      "Write a self-contained HTML report of a trace file or folder, or of a `stepscope monitor` "
      "timeline (.json) (opens offline)");
  add_analysis_options(*command, a.analysis);
  command->add_option("-o,--output", a.output, "the HTML file to write ('-': stdout)")
      ->capture_default_str();
}

namespace {

// A timeline document of `stepscope monitor -o FILE.json`: its own page.
std::string timeline_report(const std::string& path, std::string& html) {
  Result<live::MonitorTimelineDocument> document = live::read_timeline_document(path);
  if (!document) return document.error().describe();
  html = live::render_monitor_html(*document);
  return {};
}

}  // namespace

int run_report(const ReportArguments& a) {
  if (Status s = check_output_paths({a.analysis.path}, {{"-o", a.output}}); !s) {
    fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
    return 2;
  }
  std::string html;
  if (live::is_timeline_document(a.analysis.path)) {
    if (std::string error = timeline_report(a.analysis.path, html); !error.empty()) {
      fmt::print(stderr, "stepscope: error: {}\n", error);
      return 2;
    }
  } else {
    ReportPtr report = analyze_with_progress(a.analysis);
    if (!report) return 2;
    html = render_html(*report, a.analysis.top);
  }
  if (Status s = write_output_file(a.output, html); !s) {
    fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
    return 2;
  }
  if (!a.analysis.quiet && a.output != "-") fmt::print(stderr, "wrote {}\n", a.output);
  return 0;
}

}  // namespace stepscope::cli
