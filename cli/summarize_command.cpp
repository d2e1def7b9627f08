#include "summarize_command.h"

#include <fmt/core.h>

#include "stepscope/job/job_report.h"
#include "stepscope/report.h"

namespace stepscope::cli {

void add_summarize_command(CLI::App& app, SummarizeArguments& a) {
  CLI::App* command = app.add_subcommand(
      "summarize", "Summarise one rank's trace for `stepscope merge` (the map step of a job)");
  command->add_option("TRACE", a.path, "trace file (.json, .json.gz)")->required();
  command->add_option("-o,--output", a.output, "summary file to write ('-': stdout)");
  command->add_option("--mode", a.mode, "native (default), compat-hta or compat-tb")
      ->check(CLI::IsMember({"native", "compat-hta", "compat-tb"}));
}

int run_summarize(const SummarizeArguments& a) {
  AnalysisOptions analysis;
  analysis.mode = parse_mode(a.mode).value_or(Mode::kNative);
  Result<std::string> summary = job::summarize_file(a.path, analysis);
  if (!summary) {
    fmt::print(stderr, "stepscope: error: {}\n", summary.error().describe());
    return 2;
  }
  if (Status s = write_output_file(a.output, *summary); !s) {
    fmt::print(stderr, "stepscope: error: {}\n", s.error().describe());
    return 2;
  }
  return 0;
}

}  // namespace stepscope::cli
