#include "report_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "analyze_command.h"
#include "common.h"
#include "stepscope/annotate.h"
#include "stepscope/live/timeline_document.h"
#include "stepscope/output_check.h"

namespace stepscope::cli {

namespace {

struct ReportArguments {
  std::string path;
  AnalysisArguments analysis;
  FolderReportArguments folder;
  std::string output = "stepscope-report.html";
  std::string annotate_output;  // --annotate: the trace with the findings as markers, for Perfetto
  int top = 10;
  bool quiet = false;
};

// Checked before loading, so that a mistake costs no analysis time.
std::optional<std::string> check_annotate(const ReportArguments& a) {
  if (a.annotate_output.empty()) return std::nullopt;
  if (a.annotate_output == "-") return "--annotate needs a file name, not '-'";
  std::error_code error;
  if (std::filesystem::is_directory(a.path, error)) {
    return a.path + ": --annotate takes a single trace file, not a folder";
  }
  if (live::is_timeline_document(a.path)) {
    return a.path + ": --annotate needs a trace file; a monitor timeline is not one";
  }
  return std::nullopt;
}

int run_report(const ReportArguments& a) {
  if (const auto problem = check_annotate(a)) return fail(*problem);
  if (Status s =
          check_output_paths({a.path}, {{"-o", a.output}, {"--annotate", a.annotate_output}});
      !s) {
    return fail(s.error());
  }
  std::string html;
  if (live::is_timeline_document(a.path)) {  // `stepscope monitor -o FILE.json`: its own page
    Result<live::MonitorTimelineDocument> document = live::read_timeline_document(a.path);
    if (!document) return fail(document.error());
    html = live::render_monitor_html(*document);
  } else {
    ReportPtr report = analyze_with_progress(a.path, a.analysis, a.folder, a.top, a.quiet);
    if (!report) return kExitBadInput;
    html = render_html(*report, a.top);
    if (!a.annotate_output.empty()) {
      if (Status s = write_annotated_report(*report, a.annotate_output); !s) return fail(s.error());
    }
  }
  if (!write_output(a.output, html)) return kExitBadInput;
  if (!a.quiet && a.output != "-") fmt::print(stderr, "wrote {}\n", printable(a.output));
  if (!a.quiet && !a.annotate_output.empty()) {
    fmt::print(stderr, "wrote {} (open it at ui.perfetto.dev)\n", printable(a.annotate_output));
  }
  return kExitOk;
}

}  // namespace

void register_report_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<ReportArguments>();
  CLI::App* command = app.add_subcommand(
      "report", "Write a self-contained HTML report of a trace, folder or timeline");
  command->add_option("PATH", a->path, "trace file or folder, or a monitor timeline")->required();
  add_analysis_options(*command, a->analysis);
  add_folder_report_options(*command, a->folder);
  add_top_option(*command, a->top);
  command->add_option("-o,--output", a->output, "the HTML file to write ('-': stdout)")
      ->type_name("FILE")
      ->capture_default_str();
  command
      ->add_option("--annotate", a->annotate_output,
                   "also write the trace with the findings as markers, for Perfetto")
      ->type_name("OUT.json");
  add_quiet_flag(*command, a->quiet, "no progress and no 'wrote' line");
  command->footer(
      "Examples:\n"
      "  stepscope report trace.json.gz -o report.html\n"
      "  stepscope report trace.json.gz -o report.html --annotate annotated.json\n"
      "  stepscope report traces/ --rank 0 --steps 3:10 -o rank0.html\n"
      "  stepscope report timeline.json -o monitor.html");
  command->callback([a, &exit_status] { exit_status = run_report(*a); });
}

}  // namespace stepscope::cli
