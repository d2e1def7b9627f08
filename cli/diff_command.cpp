#include "diff_command.h"

#include <fmt/core.h>

#include "progress.h"
#include "stepscope/diff.h"
#include "stepscope/output_check.h"
#include "stepscope/report.h"

namespace stepscope::cli {

namespace {

constexpr int kExitBadInput = 2;

int fail(const std::string& message) {
  fmt::print(stderr, "stepscope: error: {}\n", message);
  return kExitBadInput;
}

}  // namespace

void add_diff_command(CLI::App& app, DiffArguments& a) {
  CLI::App* command = app.add_subcommand(
      "diff",
      "Compare two runs (trace files or folders): step time with a confidence interval, "
      "and what changed per phase, op, kernel and finding");
  command->add_option("BEFORE", a.before, "trace file or folder of the run before")->required();
  command->add_option("AFTER", a.after, "trace file or folder of the run after")->required();
  command->add_option("--json", a.json_output,
                      "write the comparison as JSON to FILE ('-': stdout)");
  command->add_option("--html", a.html_output,
                      "write the comparison as a self-contained HTML page");
  command->add_option("--rank", a.rank, "compare only this rank");
  command->add_option("--top", a.top, "rows in top-N tables")->check(CLI::Range(1, 100000));
  command
      ->add_option("--fail-if-slower", a.fail_if_slower,
                   "exit 3 when the after run is slower than PCT % with 95 % confidence")
      ->check(CLI::Range(0.0, 1e9));
  command->add_option("--seed", a.seed, "bootstrap seed (same seed, same interval)");
  command->add_option("--resamples", a.resamples, "bootstrap resamples")
      ->check(CLI::Range(100, 1000000));
  command->add_flag("-q,--quiet", a.quiet, "no progress and no terminal report");
}

int run_diff(const DiffArguments& a) {
  if (Status s = check_output_paths({a.before, a.after},
                                    {{"--json", a.json_output}, {"--html", a.html_output}});
      !s) {
    return fail(s.error().describe());
  }
  DiffRequest request;
  request.before = a.before;
  request.after = a.after;
  request.analysis.top = a.top;
  request.load.rank = a.rank;
  request.top = a.top;
  request.seed = a.seed;
  request.resamples = a.resamples;
  Progress progress(!a.quiet && stderr_is_terminal(), "loading");
  request.load.progress = [&progress](std::uint64_t done, std::uint64_t total) {
    progress.update(done, total);
  };
  Result<DiffResult> result = compare_runs(request);
  progress.finish();
  if (!result) return fail(result.error().describe());
  if (!a.html_output.empty()) {
    if (Status s = write_output_file(a.html_output, render_diff_html(*result)); !s) {
      return fail(s.error().describe());
    }
  }
  if (!a.json_output.empty()) {
    if (Status s = write_output_file(a.json_output, render_diff_json(*result)); !s) {
      return fail(s.error().describe());
    }
  }
  if (!a.quiet && a.json_output != "-") fmt::print("{}", render_diff_text(*result, a.top));
  if (a.fail_if_slower && slower_beyond(*result, *a.fail_if_slower)) {
    const StepComparison& s = result->steps;
    fmt::print(stderr,
               "stepscope: the after run is slower than {} % with 95 % confidence "
               "(change {:+.1f} %, interval {:+.1f} % … {:+.1f} %)\n",
               *a.fail_if_slower, s.change_share * 100, (s.ratio_low - 1) * 100,
               (s.ratio_high - 1) * 100);
    return kExitSlower;
  }
  return 0;
}

}  // namespace stepscope::cli
