// `stepscope analyze PATH`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "stepscope/report.h"

namespace stepscope::cli {

struct AnalyzeArguments {
  std::string path;
  std::string json_output;      // "" none, "-" stdout
  std::string annotate_output;  // "" none: the trace with the findings as markers
  std::optional<std::int64_t> rank;
  std::string steps;  // "FIRST:LAST"
  int top = 10;
  bool quiet = false;
  bool skip_bad = false;
  std::string mode = "native";
  unsigned threads = 0;  // 0: by input size
  bool group_by_input_shape = false;
  bool no_hta_rounding = false;
  unsigned jobs = 0;  // folder: ranks analysed at once; 0: the core count
  std::optional<std::int64_t> run;
  bool per_rank = false;
};

void add_analyze_command(CLI::App& app, AnalyzeArguments& arguments);
int run_analyze(const AnalyzeArguments& arguments);

// Shared with `stepscope report`: the options that choose what is analysed and how.
void add_analysis_options(CLI::App& command, AnalyzeArguments& arguments);
// Runs the analysis with progress on a terminal; prints the error and returns nullptr on bad
// input.
ReportPtr analyze_with_progress(const AnalyzeArguments& arguments);

}  // namespace stepscope::cli
