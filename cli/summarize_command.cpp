#include "summarize_command.h"

#include <memory>
#include <string>

#include "common.h"
#include "stepscope/job/job_report.h"
#include "stepscope/output_check.h"

namespace stepscope::cli {

namespace {

struct SummarizeArguments {
  std::string path;
  std::string output = "-";
  std::string mode = "native";
};

int run_summarize(const SummarizeArguments& a) {
  if (Status s = check_output_paths({a.path}, {{"-o", a.output}}); !s) return fail(s.error());
  AnalysisOptions analysis;
  analysis.mode = parse_mode(a.mode).value_or(Mode::kNative);
  Result<std::string> summary = job::summarize_file(a.path, analysis);
  if (!summary) return fail(summary.error());
  if (!write_output(a.output, *summary)) return kExitBadInput;
  return kExitOk;
}

}  // namespace

void register_summarize_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<SummarizeArguments>();
  CLI::App* command = app.add_subcommand(
      "summarize", "Summarise one rank's trace for `stepscope merge` (the map step)");
  command->add_option("TRACE", a->path, "trace file (.json, .json.gz, .sqlite, .nsys-rep)")
      ->required();
  command->add_option("-o,--output", a->output, "summary file to write ('-': stdout)")
      ->type_name("FILE")
      ->capture_default_str();
  command->add_option("--mode", a->mode, "native, compat-hta or compat-tb")
      ->check(CLI::IsMember({"native", "compat-hta", "compat-tb"}))
      ->capture_default_str();
  command->footer(
      "Examples:\n"
      "  stepscope summarize traces/rank3.json.gz -o summaries/rank3.summary.json\n"
      "  stepscope merge summaries/*.summary.json");
  command->callback([a, &exit_status] { exit_status = run_summarize(*a); });
}

}  // namespace stepscope::cli
