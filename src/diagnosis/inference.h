// Whether a trace is of inference: the rules that are only right for a forward pass ask here.
#pragma once

#include "stepscope/analysis/rank_analyses.h"

namespace stepscope {

// Phases are known, and neither a backward pass nor an optimizer step ran in the trace.
[[nodiscard]] bool is_forward_only(const RankAnalyses& rank);

}  // namespace stepscope
