#include "rules_command.h"

#include <fmt/format.h>

#include <memory>

#include "common.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/report.h"

namespace stepscope::cli {

namespace {

struct RulesArguments {
  bool json = false;
  bool markdown = false;
};

int run_rules(const RulesArguments& a) {
  if (a.json) {
    fmt::print("{}", render_rule_catalogue_json());
  } else if (a.markdown) {
    fmt::print("{}", render_rule_catalogue_markdown());
  } else {
    for (const RuleDescription& rule : rule_catalogue()) {
      fmt::print("{}  ({})\n  {}\n  threshold: {}\n\n", rule.id, to_string(rule.bottleneck),
                 rule.title, rule.threshold);
    }
  }
  return kExitOk;
}

}  // namespace

void register_rules_command(CLI::App& app, int& exit_status) {
  auto a = std::make_shared<RulesArguments>();
  CLI::App* command = app.add_subcommand("rules", "List the diagnosis rules and their thresholds");
  CLI::Option* json = command->add_flag("--json", a->json, "as JSON");
  command->add_flag("--markdown", a->markdown, "as the Markdown page docs/rules.md")
      ->excludes(json);
  command->footer(
      "Examples:\n"
      "  stepscope rules\n"
      "  stepscope rules --markdown > docs/rules.md");
  command->callback([a, &exit_status] { exit_status = run_rules(*a); });
}

}  // namespace stepscope::cli
