// `stepscope whatif TRACE --loader 0 --no-syncs --launch-us 2 --op aten::mm=2x`: the kept steps
// re-timed under a change, and the critical path before and after.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_whatif_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
