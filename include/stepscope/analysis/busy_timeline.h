// GPU busy over time, per device: the analysis window cut into equal bins, each with the share
// of it during which any device activity (kernel, copy, set) runs. What the HTML report draws as
// a strip: gaps in the GPU's work show as pale stretches at the time they happen.
#pragma once

#include <cstdint>
#include <vector>

#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

inline constexpr int kBusyTimelineBins = 400;

struct DeviceBusyTimeline {
  std::int32_t device = -1;
  std::vector<double> busy_share;  // per bin, 0..1 of the bin's length
};

struct BusyTimelineResult {
  bool applicable = false;
  Interval window;
  std::int64_t bin_ns = 0;
  std::vector<DeviceBusyTimeline> devices;  // by device id
};

BusyTimelineResult compute_busy_timeline(const Trace& trace, const StepsResult& steps,
                                         int bins = kBusyTimelineBins);

}  // namespace stepscope
