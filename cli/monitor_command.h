// `stepscope monitor [options] -- COMMAND...`: runs COMMAND, samples it and the GPUs while it
// runs, and ends with a summary and a verdict. Its exit status is COMMAND's.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace stepscope::cli {

struct MonitorArguments {
  std::string interval = "100ms";
  std::string json_output;  // the timeline as JSON; "" none
  std::string csv_output;   // the samples as CSV; "" none
  bool quiet = false;
  bool no_gpu = false;
  std::vector<std::string> command;
};

void add_monitor_command(CLI::App& app, MonitorArguments& arguments);
int run_monitor(const MonitorArguments& arguments);

}  // namespace stepscope::cli
