#include "rules_command.h"

#include <fmt/core.h>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/report.h"

namespace stepscope::cli {

void add_rules_command(CLI::App& app, RulesArguments& arguments) {
  CLI::App* command = app.add_subcommand("rules", "List the diagnosis rules and their thresholds");
  command->add_flag("--json", arguments.json, "as JSON");
}

int run_rules(const RulesArguments& arguments) {
  if (arguments.json) {
    fmt::print("{}", render_rule_catalogue_json());
    return 0;
  }
  for (const RuleDescription& rule : rule_catalogue()) {
    fmt::print("{}  ({})\n  {}\n  threshold: {}\n\n", rule.id, to_string(rule.bottleneck),
               rule.title, rule.threshold);
  }
  return 0;
}

}  // namespace stepscope::cli
