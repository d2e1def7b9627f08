// The stepscope command: argument parsing and exit codes only; the library does the work.
// Exit status: 0 success, 2 bad input or usage, 1 an unexpected internal failure; `diff` with
// --fail-if-slower: 3 when the after run is slower beyond the threshold.
#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <exception>

#include "analyze_command.h"
#include "diff_command.h"
#include "memory_command.h"
#include "merge_command.h"
#include "monitor_command.h"
#include "report_command.h"
#include "rules_command.h"
#include "scaling_command.h"
#include "summarize_command.h"

int main(int argc, char** argv) {
  CLI::App app{"stepscope: a performance doctor for PyTorch profiler traces"};
  app.set_version_flag("--version", std::string("stepscope ") + STEPSCOPE_VERSION);
  app.require_subcommand(1);
  stepscope::cli::AnalyzeArguments analyze;
  stepscope::cli::add_analyze_command(app, analyze);
  stepscope::cli::DiffArguments diff;
  stepscope::cli::add_diff_command(app, diff);
  stepscope::cli::MemoryArguments memory;
  stepscope::cli::add_memory_command(app, memory);
  stepscope::cli::ReportArguments report;
  stepscope::cli::add_report_command(app, report);
  stepscope::cli::RulesArguments rules;
  stepscope::cli::add_rules_command(app, rules);
  stepscope::cli::MonitorArguments monitor;
  stepscope::cli::add_monitor_command(app, monitor);
  stepscope::cli::SummarizeArguments summarize;
  stepscope::cli::add_summarize_command(app, summarize);
  stepscope::cli::MergeArguments merge;
  stepscope::cli::add_merge_command(app, merge);
  stepscope::cli::ScalingArguments scaling;
  stepscope::cli::add_scaling_command(app, scaling);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    if (app.got_subcommand("analyze")) return stepscope::cli::run_analyze(analyze);
    if (app.got_subcommand("diff")) return stepscope::cli::run_diff(diff);
    if (app.got_subcommand("memory")) return stepscope::cli::run_memory(memory);
    if (app.got_subcommand("report")) return stepscope::cli::run_report(report);
    if (app.got_subcommand("rules")) return stepscope::cli::run_rules(rules);
    if (app.got_subcommand("monitor")) return stepscope::cli::run_monitor(monitor);
    if (app.got_subcommand("summarize")) return stepscope::cli::run_summarize(summarize);
    if (app.got_subcommand("merge")) return stepscope::cli::run_merge(merge);
    if (app.got_subcommand("scaling")) return stepscope::cli::run_scaling(scaling);
  } catch (const std::exception& e) {
    fmt::print(stderr, "stepscope: internal error: {}\n", e.what());
    return 1;
  }
  return 2;
}
