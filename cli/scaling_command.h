// `stepscope scaling RUN_A RUN_B ...`: throughput per rank of one job at several world sizes.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_scaling_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
