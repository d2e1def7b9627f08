#include "diagnosis/inference.h"

namespace stepscope {

bool is_forward_only(const RankAnalyses& rank) {
  const PhasesResult& phases = rank.phases;
  return phases.applicable && phases.markers[static_cast<std::size_t>(Phase::kBackward)] == 0 &&
         phases.markers[static_cast<std::size_t>(Phase::kOptimizer)] == 0;
}

}  // namespace stepscope
