// `stepscope scaling RUN_A RUN_B ...`: the same job at several world sizes, compared.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace stepscope::cli {

struct ScalingArguments {
  std::vector<std::string> runs;  // folders of traces
};

void add_scaling_command(CLI::App& app, ScalingArguments& arguments);
int run_scaling(const ScalingArguments& arguments);

}  // namespace stepscope::cli
