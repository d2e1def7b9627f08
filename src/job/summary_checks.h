// What a rank summary may say: summaries come from other machines and other hands, and merge
// computes with their numbers (medians, waits, scaling), so an impossible value is refused with
// the file named rather than turned into a negative p50 or a flipped verdict.
#pragma once

#include <optional>
#include <string>

#include "stepscope/job/rank_summary.h"

namespace stepscope::job {

// The first impossible value in `summary`, said with the field that holds it; nullopt when
// every value is possible.
std::optional<std::string> impossible_value(const RankSummary& summary);

}  // namespace stepscope::job
