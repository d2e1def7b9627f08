#include "scaling_command.h"

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "stepscope/job/job_report.h"
#include "stepscope/job/run_scaling.h"

namespace stepscope::cli {

namespace {

struct ScalingArguments {
  std::vector<std::string> runs;
};

int run_scaling(const ScalingArguments& a) {
  std::vector<job::JobAnalysis> jobs;
  for (const std::string& run : a.runs) {
    Result<job::JobAnalysis> analysed = job::analyze_folder_job(run);
    if (!analysed) return fail(analysed.error());
    jobs.push_back(std::move(analysed).value());
  }
  fmt::print("{}", job::render_scaling_text(job::compare_runs_scaling(a.runs, jobs)));
  return kExitOk;
}

}  // namespace

void register_scaling_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<ScalingArguments>();
  CLI::App* command = app.add_subcommand(
      "scaling", "Compare runs of one job at different world sizes: throughput per rank");
  command->add_option("RUN", a->runs, "folders, one per run (one trace per rank)")
      ->required()
      ->expected(2, 1 << 20);
  command->footer("Example:\n  stepscope scaling runs/8gpus runs/16gpus runs/32gpus");
  command->callback([a, &exit_status] { exit_status = run_scaling(*a); });
}

}  // namespace stepscope::cli
