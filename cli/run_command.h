// `stepscope run [options] -- COMMAND...`: runs a PyTorch program unchanged, records a window of
// its steps in each process that imports torch, and diagnoses the traces when it ends. Its exit
// status is COMMAND's.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, COMMAND's exit status lands in `exit_status`.
void register_run_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
