// `stepscope report PATH -o report.html`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "analyze_command.h"

namespace stepscope::cli {

struct ReportArguments {
  AnalyzeArguments analysis;
  std::string output = "stepscope-report.html";
};

void add_report_command(CLI::App& app, ReportArguments& arguments);
int run_report(const ReportArguments& arguments);

}  // namespace stepscope::cli
