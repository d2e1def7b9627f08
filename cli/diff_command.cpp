#include "diff_command.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>

#include "common.h"
#include "stepscope/diff.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"
#include "terminal_width.h"

namespace stepscope::cli {

namespace {

struct DiffArguments {
  std::string before;
  std::string after;
  AnalysisArguments analysis;  // applied to both sides
  std::string json_output;     // "" none, "-" stdout
  std::string html_output;     // "" none
  int top = 10;
  std::size_t width = 0;  // --width; 0: ask the terminal
  bool quiet = false;
  bool no_report = false;
  std::optional<double> fail_if_slower;  // percent
  std::uint64_t seed = 1;
  int resamples = 10000;
};

int run_diff(const DiffArguments& a) {
  if (Status s = check_output_paths({a.before, a.after},
                                    {{"--json", a.json_output}, {"--html", a.html_output}});
      !s) {
    return fail(s.error().describe());
  }
  DiffRequest request;
  request.before = a.before;
  request.after = a.after;
  if (Status s = apply_analysis_options(a.analysis, a.top, request.analysis, request.load); !s) {
    return fail(s.error());
  }
  request.top = a.top;
  request.seed = a.seed;
  request.resamples = a.resamples;
  LoadProgress progress(a.quiet, "loading");
  request.load.progress = progress.callback();
  Result<DiffResult> result = compare_runs(request);
  progress.finish();
  if (!result) return fail(result.error());
  if (!a.html_output.empty() && !write_output(a.html_output, render_diff_html(*result))) {
    return kExitBadInput;
  }
  if (!a.json_output.empty() && !write_output(a.json_output, render_diff_json(*result))) {
    return kExitBadInput;
  }
  if (!a.no_report && a.json_output != "-")
    fmt::print("{}", render_diff_text(*result, TextOptions{a.top, report_width(a.width)}));
  if (a.fail_if_slower && slower_beyond(*result, *a.fail_if_slower)) {
    const StepComparison& s = result->steps;
    fmt::print(stderr,
               "stepscope: the after run is slower than {} % with 95 % confidence "
               "(change {:+.1f} %, interval {:+.1f} % … {:+.1f} %)\n",
               *a.fail_if_slower, s.change_share * 100, (s.ratio_low - 1) * 100,
               (s.ratio_high - 1) * 100);
    return kExitSlower;
  }
  return kExitOk;
}

}  // namespace

void register_diff_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<DiffArguments>();
  CLI::App* command = app.add_subcommand(
      "diff", "Compare two runs: step time with a 95 % interval, and what changed");
  command->add_option("BEFORE", a->before, "trace file or folder of the run before")->required();
  command->add_option("AFTER", a->after, "trace file or folder of the run after")->required();
  add_analysis_options(*command, a->analysis);
  add_top_option(*command, a->top);
  add_width_option(*command, a->width);
  add_json_option(*command, a->json_output, "the comparison");
  command
      ->add_option("--html", a->html_output, "write the comparison as a self-contained HTML page")
      ->type_name("FILE");
  command
      ->add_option("--fail-if-slower", a->fail_if_slower,
                   "exit 3 when the after run is slower than PCT % with 95 % confidence")
      ->type_name("PCT")
      ->check(CLI::Range(0.0, 1e9));
  command->add_option("--seed", a->seed, "bootstrap seed (same seed, same interval)")
      ->capture_default_str();
  command->add_option("--resamples", a->resamples, "bootstrap resamples")
      ->check(CLI::Range(100, 1000000))
      ->capture_default_str();
  add_quiet_flag(*command, a->quiet, "no progress bar");
  add_no_report_flag(*command, a->no_report);
  command->footer(
      "Examples:\n"
      "  stepscope diff before.json.gz after.json.gz\n"
      "  stepscope diff runs/before/ runs/after/ --steps 3:20 --html diff.html\n"
      "  stepscope diff before.json after.json --no-report --fail-if-slower 5   # exit 3 in CI\n"
      "Verdicts on step time (bootstrap 95 % interval of the ratio after / before):\n"
      "  faster, slower: the whole interval is below / above 1\n"
      "  no significant change: the interval holds 1\n"
      "  undetermined: fewer than 2 kept steps on a side\n"
      "Exit status: 0 done, 2 bad input, 3 slower beyond --fail-if-slower.");
  command->callback([a, &exit_status] { exit_status = run_diff(*a); });
}

}  // namespace stepscope::cli
