// The GPU's busy time as one interval set (all devices and streams of the rank): rules ask
// "was the GPU idle then, and for how long after".
#pragma once

#include <cstdint>

#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

IntervalSet device_busy(const Trace& trace);

// Idle time from t until the next busy interval starts (0 if t is busy; the rest of `limit`
// if nothing starts before it).
std::int64_t idle_after(const IntervalSet& busy, std::int64_t t, std::int64_t limit);

}  // namespace stepscope
