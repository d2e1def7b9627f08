// `stepscope plan MEASUREMENT.json`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_plan_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
