#include "merge_command.h"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "stepscope/job/job_report.h"
#include "stepscope/output_check.h"
#include "terminal_width.h"

namespace stepscope::cli {

namespace {

struct MergeArguments {
  std::vector<std::string> summaries;
  std::string json_output;  // "" none, "-" stdout
  std::string html_output;  // "" none
  std::optional<std::int64_t> run;
  std::optional<double> link_gbps;
  int top = 10;
  std::size_t width = 0;  // --width; 0: ask the terminal
  bool quiet = false;
  bool no_report = false;
};

int run_merge(const MergeArguments& a) {
  Result<std::vector<std::string>> paths = job::summary_paths(a.summaries);
  if (!paths) return fail(paths.error());
  if (Status s = check_output_paths(*paths, {{"--json", a.json_output}, {"--html", a.html_output}});
      !s) {
    return fail(s.error());
  }
  job::JobOptions options;
  options.run = a.run;
  options.link_peak_gb_per_s = a.link_gbps;
  Result<job::JobAnalysis> merged = job::merge_summary_files(*paths, options);
  if (!merged) return fail(merged.error());
  if (!a.json_output.empty() && !write_output(a.json_output, job::render_job_json(*merged))) {
    return kExitBadInput;
  }
  if (!a.html_output.empty() && !write_output(a.html_output, job::render_job_html(*merged))) {
    return kExitBadInput;
  }
  if (!a.quiet && !a.no_report && a.json_output != "-")
    fmt::print("{}", job::render_job_text(*merged, TextOptions{a.top, report_width(a.width)}));
  return kExitOk;
}

}  // namespace

void register_merge_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<MergeArguments>();
  CLI::App* command = app.add_subcommand(
      "merge", "The job report from rank summaries written by `stepscope summarize`");
  command
      ->add_option("SUMMARY", a->summaries,
                   "files, folders of *.summary.json, @LIST or - (paths one per line)")
      ->required();
  add_json_option(*command, a->json_output, "the job");
  command->add_option("--html", a->html_output, "write the job as an HTML page to FILE")
      ->type_name("FILE");
  command->add_option("--run", a->run, "several runs among the summaries: analyse run N");
  add_link_option(*command, a->link_gbps);
  add_top_option(*command, a->top);
  add_width_option(*command, a->width);
  add_quiet_flag(*command, a->quiet, "no terminal report (as --no-report)");
  add_no_report_flag(*command, a->no_report);
  command->footer(
      "Examples:\n"
      "  stepscope merge summaries/*.summary.json\n"
      "  stepscope merge summaries/ --json job.json --html job.html -q\n"
      "  find /shared/job -name '*.summary.json' | stepscope merge -");
  command->callback([a, &exit_status] { exit_status = run_merge(*a); });
}

}  // namespace stepscope::cli
