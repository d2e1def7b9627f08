// The diagnosis of one rank: the bottleneck type, the part of the step it sits in, the
// operations that dominate it, and the findings ranked by the saving they promise.
#pragma once

#include <string>
#include <vector>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/finding.h"

namespace stepscope {

struct Diagnosis {
  Bottleneck bottleneck = Bottleneck::kHealthy;
  StepPart part = StepPart::kWholeStep;
  std::vector<std::string> dominant_operations;
  std::string summary;  // one sentence, the answer
  // Which steps the figures are per, and why: empty for profiler steps; otherwise the repeated
  // region used as iterations, or the whole trace as one window.
  std::string window;
  // For a healthy trace: what limits it now.
  std::string limited_by;
  std::vector<Finding> findings;  // ranked by likely saving, largest first
  // Peak memory against each GPU's capacity, where both are known: the verdict's headroom line.
  std::vector<DeviceHeadroom> memory_headroom;
};

Diagnosis diagnose(const RankAnalyses& rank);

// One entry per rule, for `stepscope rules` and docs/rules.md.
struct RuleDescription {
  std::string id;
  std::string title;
  Bottleneck bottleneck;
  std::string threshold;  // the threshold and why
};
const std::vector<RuleDescription>& rule_catalogue();

}  // namespace stepscope
