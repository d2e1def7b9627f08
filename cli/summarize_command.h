// `stepscope summarize TRACE -o RANK.summary.json`: one rank's summary for a later `merge`.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_summarize_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
