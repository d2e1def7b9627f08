// `stepscope rules`: the diagnosis rule catalogue with thresholds.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_rules_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
