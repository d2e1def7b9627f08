// Launch-queue length per stream (docs/metrics/08-hta-queue-length-summary.md §8 native): how much
// work the host has submitted that has not started yet. The queue grows by one when a launch call
// starts and shrinks by one when the launched activity starts. Near CUDA's per-stream limit of 1024
// a launch call blocks until a slot frees: the host then runs at the GPU's pace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

// hta/common/constants.py@f4d0062c CUDA_MAX_LAUNCH_QUEUE_PER_STREAM.
inline constexpr std::int64_t kLaunchQueueLimit = 1024;

struct StreamQueueLength {
  std::int32_t device = -1;
  std::int64_t stream = -1;
  std::int64_t launches = 0;               // launch calls (one per activity) that start inside W
  std::int64_t samples = 0;                // change points inside W (HTA counts each point once)
  std::int64_t depth_at_window_start = 0;  // submitted before W, not started by its start
  std::int64_t max_depth = 0;              // over W, the depth at W's start included
  std::int64_t min_depth = 0;  // below 0 only when an activity starts before its call (skew)
  double time_weighted_mean_depth = 0;  // ∫ depth dt / |W|
  std::int64_t time_at_limit_ns = 0;    // depth >= 1024: launch calls block
  double time_at_limit_share = 0;       // of |W|
};

struct QueueLengthResult {
  bool applicable = false;
  std::string not_applicable_reason;
  Interval window;                         // W
  std::vector<StreamQueueLength> streams;  // by device, then stream
};

// Native: the launch classes of launch_class.h (synchronous copies included), per (device,
// stream) of the launched activity, with every change point of the whole trace integrated and
// the figures taken over the window W. Each launched activity is one queue entry, as in HTA,
// except a graph launch: one entry per stream it runs on, until its first activity there starts.
QueueLengthResult compute_queue_length(const Trace& trace, const StepsResult& steps,
                                       const AnalysisOptions& options);

}  // namespace stepscope
