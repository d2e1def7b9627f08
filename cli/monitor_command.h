// `stepscope monitor [options] -- COMMAND...`: runs COMMAND, samples it and the GPUs while it
// runs, and ends with a summary and a verdict. Its exit status is COMMAND's.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, COMMAND's exit status lands in `exit_status`.
void register_monitor_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
