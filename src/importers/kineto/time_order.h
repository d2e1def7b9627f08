// The order events are stored in after load: start ascending, longer first on ties (so that a
// parent precedes its children), and file order among events equal in both.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::kineto {

// The permutation that puts (start_ns, dur_ns) in that order: order[k] is the index of the k-th
// event. Runs on up to two threads.
std::vector<EventIndex> time_order(std::span<const std::int64_t> start_ns,
                                   std::span<const std::int64_t> dur_ns, unsigned threads);

}  // namespace stepscope::kineto
