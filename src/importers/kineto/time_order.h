// The order events are stored in after load: start ascending, longer first on ties (so that a
// parent precedes its children), and file order among events equal in both.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::kineto {

// Which sequence each event, in file order, belongs to: its thread. A profiler writes each
// thread's events nearly in time order, so the order is found by merging those sequences rather
// than by sorting everything afresh. The numbering only guides the work: any numbering (or none,
// an empty `first`) gives the same order, more slowly where it does not follow the time.
struct EventSequences {
  std::span<const std::uint32_t> first;  // the sequences of events [0, first.size())
  // Those of the events after, numbered apart from `first`'s (a later part's own thread ids).
  std::span<const std::uint32_t> rest;
};

// The permutation that puts (start_ns, dur_ns) in that order: order[k] is the index of the k-th
// event. Runs on up to two threads.
std::vector<EventIndex> time_order(std::span<const std::int64_t> start_ns,
                                   std::span<const std::int64_t> dur_ns,
                                   const EventSequences& sequences, unsigned threads);

}  // namespace stepscope::kineto
