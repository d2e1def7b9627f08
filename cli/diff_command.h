// `stepscope diff BEFORE AFTER`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`
// (kExitSlower when --fail-if-slower PCT is given and the after run is slower than PCT %).
void register_diff_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
