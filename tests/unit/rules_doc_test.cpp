// docs/rules.md is generated from the rule catalogue (`stepscope rules --markdown`): a threshold
// changed in src/diagnosis/catalogue.cpp without regenerating the page fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/report.h"

namespace stepscope {
namespace {

TEST(RulesDoc, CommittedPageMatchesTheCatalogue) {
  const std::string path = std::string(STEPSCOPE_TEST_DATA) + "/../../docs/rules.md";
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << path << " is missing";
  std::stringstream committed;
  committed << file.rdbuf();
  EXPECT_EQ(committed.str(), render_rule_catalogue_markdown())
      << path << " is stale: regenerate it with `stepscope rules --markdown > docs/rules.md`";
}

TEST(RulesDoc, EveryRuleAndThresholdIsOnThePage) {
  const std::string page = render_rule_catalogue_markdown();
  ASSERT_FALSE(rule_catalogue().empty());
  for (const RuleDescription& rule : rule_catalogue()) {
    EXPECT_NE(page.find("## " + rule.id + "\n"), std::string::npos) << rule.id;
    EXPECT_NE(page.find(rule.threshold), std::string::npos) << rule.id;
  }
}

}  // namespace
}  // namespace stepscope
