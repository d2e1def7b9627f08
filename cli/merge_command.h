// `stepscope merge SUMMARY...`: the job report from rank summaries (the reduce step of a job).
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

// Adds the subcommand; when it is chosen, its run's exit status lands in `exit_status`.
void register_merge_command(CLI::App& app, int& exit_status);

}  // namespace stepscope::cli
