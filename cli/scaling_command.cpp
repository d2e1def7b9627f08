#include "scaling_command.h"

#include <fmt/core.h>

#include "stepscope/job/job_report.h"
#include "stepscope/job/run_scaling.h"
#include "stepscope/report.h"

namespace stepscope::cli {

void add_scaling_command(CLI::App& app, ScalingArguments& a) {
  CLI::App* command = app.add_subcommand(
      "scaling", "Compare runs of one job at different world sizes: throughput per rank");
  command->add_option("RUN", a.runs, "folders, one per run (one trace per rank)")
      ->required()
      ->expected(2, 1 << 20);
}

int run_scaling(const ScalingArguments& a) {
  std::vector<job::JobAnalysis> jobs;
  for (const std::string& run : a.runs) {
    Result<job::JobAnalysis> analysed = job::analyze_folder_job(run);
    if (!analysed) {
      fmt::print(stderr, "stepscope: error: {}\n", analysed.error().describe());
      return 2;
    }
    jobs.push_back(std::move(analysed).value());
  }
  fmt::print("{}", job::render_scaling_text(job::compare_runs_scaling(a.runs, jobs)));
  return 0;
}

}  // namespace stepscope::cli
