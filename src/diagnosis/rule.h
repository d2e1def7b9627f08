// The rule catalogue: each rule reads a rank's analyses and returns zero or more findings.
#pragma once

#include <vector>

#include "stepscope/diagnosis/diagnose.h"

namespace stepscope {

using RuleCheck = std::vector<Finding> (*)(const RankAnalyses&);

struct Rule {
  RuleDescription description;
  RuleCheck check;
};

// Every rule, in catalogue order (ranking happens after all have run).
const std::vector<Rule>& all_rules();

}  // namespace stepscope
