// `stepscope analyze PATH`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "common.h"
#include "stepscope/report.h"

namespace stepscope::cli {

struct AnalyzeArguments {
  std::string path;
  AnalysisArguments analysis;
  FolderReportArguments folder;
  std::string json_output;      // "" none, "-" stdout
  std::string annotate_output;  // "" none: the trace with the findings as markers
  int top = 10;
  std::size_t width = 0;  // --width; 0: ask the terminal
  bool quiet = false;
  bool no_report = false;
};

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_analyze_command(CLI::App& app, int& exit_status);

// Analyses `path` with progress on a terminal; prints the error and returns nullptr on failure.
// `text_width`: the columns of a streamed folder's per-rank terminal reports.
ReportPtr analyze_with_progress(const std::string& path, const AnalysisArguments& analysis,
                                const FolderReportArguments& folder, int top, bool quiet,
                                std::size_t text_width = TextOptions{}.width);

}  // namespace stepscope::cli
