// `stepscope rules`: the diagnosis rule catalogue with thresholds.
#pragma once

#include <CLI/CLI.hpp>

namespace stepscope::cli {

struct RulesArguments {
  bool json = false;
};

void add_rules_command(CLI::App& app, RulesArguments& arguments);
int run_rules(const RulesArguments& arguments);

}  // namespace stepscope::cli
