// The post-pass that names the user's code behind each finding, from its evidence events.
#pragma once

#include <vector>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/finding.h"

namespace stepscope {

// Sets Finding::code where the trace has Python context: per finding, every event its evidence
// names (by name, within the refs' first start and last end) is located, and the location that
// holds most of their time wins. Rules need not know about code locations.
void attribute_code(const RankAnalyses& rank, std::vector<Finding>& findings);

}  // namespace stepscope
