#include "analyze_command.h"

#include "allocator.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "stepscope/annotate.h"
#include "stepscope/output_check.h"
#include "terminal_width.h"

namespace stepscope::cli {

namespace {

// Checked before loading, so that a mistake costs no analysis time.
std::optional<std::string> check_annotate(const AnalyzeArguments& a) {
  if (a.annotate_output.empty()) return std::nullopt;
  if (a.annotate_output == "-") return "--annotate needs a file name, not '-'";
  std::error_code error;
  if (std::filesystem::is_directory(a.path, error)) {
    return a.path + ": --annotate takes a single trace file, not a folder";
  }
  return std::nullopt;
}

int run_analyze(const AnalyzeArguments& a) {
  if (const auto problem = check_annotate(a)) return fail(*problem);
  if (Status s = check_output_paths({a.path},
                                    {{"--json", a.json_output}, {"--annotate", a.annotate_output}});
      !s) {
    return fail(s.error());
  }
  const std::size_t width = report_width(a.width);
  ReportPtr report = analyze_with_progress(a.path, a.analysis, a.folder, a.top, a.quiet, width);
  if (!report) return kExitBadInput;
  if (!a.json_output.empty() && !write_output(a.json_output, render_json(*report))) {
    return kExitBadInput;
  }
  if (!a.annotate_output.empty()) {
    if (Status s = write_annotated_report(*report, a.annotate_output); !s) return fail(s.error());
  }
  if (!a.no_report && a.json_output != "-") {
    fmt::print("{}", render_text(*report, TextOptions{a.top, width}));
  }
  return kExitOk;
}

}  // namespace

ReportPtr analyze_with_progress(const std::string& path, const AnalysisArguments& analysis,
                                const FolderReportArguments& folder, int top, bool quiet,
                                std::size_t text_width) {
  AnalyzeRequest request;
  request.path = path;
  if (Status s = apply_analysis_options(analysis, top, request.analysis, request.load); !s) {
    fail(s.error());
    return nullptr;
  }
  request.jobs = folder.jobs;
  request.run = folder.run;
  request.per_rank = folder.per_rank;
  request.text_width = text_width;
  request.link_peak_gb_per_s = folder.link_gbps;
  reuse_freed_memory_for(path);
  LoadProgress progress(quiet, "loading");
  request.load.progress = progress.callback();
  Result<ReportPtr> report = analyze(request);
  progress.finish();
  if (!report) {
    fail(report.error());
    return nullptr;
  }
  return std::move(report).value();
}

void register_analyze_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<AnalyzeArguments>();
  CLI::App* command = app.add_subcommand(
      "analyze", "Analyze a trace (Kineto .json[.gz], Nsight .sqlite) or a rank folder");
  command->add_option("PATH", a->path, "trace file or folder")->required();
  add_analysis_options(*command, a->analysis);
  add_folder_report_options(*command, a->folder);
  add_top_option(*command, a->top);
  add_width_option(*command, a->width);
  add_json_option(*command, a->json_output, "every figure");
  command
      ->add_option("--annotate", a->annotate_output,
                   "the trace with the findings as markers (one trace only)")
      ->type_name("FILE");
  add_quiet_flag(*command, a->quiet, "no progress bar");
  add_no_report_flag(*command, a->no_report);
  command->footer(
      "Examples:\n"
      "  stepscope analyze trace.json.gz\n"
      "  stepscope analyze report.sqlite       # nsys export --type sqlite report.nsys-rep\n"
      "  stepscope analyze traces/ --rank 0 --steps 3:10 --json report.json\n"
      "  stepscope analyze trace.json --mode compat-hta --json - -q");
  command->callback([a, &exit_status] { exit_status = run_analyze(*a); });
}

}  // namespace stepscope::cli
