// Device work matched to profiler steps through the launch calls that own it
// (docs/metrics/01-profiler-steps-and-step-boundaries.md §1.4): a call belongs to the step whose
// host span holds it entirely, and its activities widen that step's device span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// Device activities as the mode counts them (compat-tb as the TensorBoard plugin: no
// accelerator kernels other than GPU ones).
bool counts_as_device_activity(EventClass c, Mode mode);

// The step that holds a launch call. Matching calls in start order to steps with a pointer that
// only moves forward gives a call the first step ending after it starts, if that step holds it;
// the same step is found here for each call alone (a binary search over the steps' running
// latest end), so activities may be matched in any order and in parts.
class StepOfCall {
 public:
  static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

  explicit StepOfCall(const std::vector<Step>& steps);
  [[nodiscard]] std::size_t find(std::int64_t call_start, std::int64_t call_end) const;

 private:
  const std::vector<Step>& steps_;
  std::vector<std::int64_t> latest_end_;  // per step: the latest host end up to it
};

// The device work of one step, through its launch calls.
struct StepDevice {
  std::int64_t first_start = std::numeric_limits<std::int64_t>::max();
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();
  std::int64_t activities = 0;
};

// Per step, in the order of `steps` (sorted by host start); halves of the activities on two
// threads when `threads` allows.
std::vector<StepDevice> match_device_work(const Trace& trace, const std::vector<Step>& steps,
                                          Mode mode, unsigned threads);

// The launch call that owns activity i if both count in this mode, else kNoEvent.
EventIndex counted_launch(const EventTable& e, EventIndex i, Mode mode);

}  // namespace stepscope
