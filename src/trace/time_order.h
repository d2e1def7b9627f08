// The order events are stored in after load: start ascending, longer first on ties (so that a
// parent precedes its children), and file order among events equal in both.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

// The permutation that puts (start_ns, dur_ns) in that order: order[k] is the index of the k-th
// event. Runs on up to two threads. `sequences`: which sequence each event, in file order,
// belongs to, its thread. A profiler writes each thread's events nearly in time order, so the
// order is found by merging those sequences rather than by sorting everything afresh. The
// numbering only guides the work: any numbering (or none, an empty span) gives the same order,
// more slowly where it does not follow the time.
std::vector<EventIndex> time_order(std::span<const std::int64_t> start_ns,
                                   std::span<const std::int64_t> dur_ns,
                                   std::span<const std::uint32_t> sequences, unsigned threads);

}  // namespace stepscope
