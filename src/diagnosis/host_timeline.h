// The host side of a step, for the rules of CPU-only runs: which events are collectives or data
// loading (owned by their own rules), and where the step's own thread runs ops.
#pragma once

#include <string_view>

#include "stepscope/analysis/data_loading.h"
#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"

namespace stepscope {

// No device activity anywhere in the trace and no GPU in its deviceProperties: the CPU did all
// the work.
[[nodiscard]] bool is_cpu_only(const Trace& trace);

// Host-side collective calls: gloo's spans, c10d's ops and `record_param_comms`.
[[nodiscard]] bool is_host_collective_name(std::string_view name);

// An op or annotation whose name is a collective, on any thread.
[[nodiscard]] bool is_host_collective(const Trace& trace, EventIndex i);

// Ops with no op around them (annotations between do not count), other than collectives and
// data loading: the units of work the Python program asked for.
[[nodiscard]] bool is_top_level_work_op(const Trace& trace, EventIndex i);

// Event i runs on the step's thread (every thread for a step over the whole trace).
[[nodiscard]] bool on_step_thread(const Trace& trace, const Step& step, EventIndex i);

// Spans of host collectives (every thread) and of data loading (every thread), merged.
[[nodiscard]] IntervalSet collective_spans(const Trace& trace);
[[nodiscard]] IntervalSet data_loading_spans(const Trace& trace);

}  // namespace stepscope
