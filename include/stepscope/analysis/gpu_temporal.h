// GPU temporal breakdown per device (docs/metrics/03-hta-temporal-breakdown-idle-compute-non.md §3
// native, §13): how the analysis window splits into idle, computation, exposed communication and
// exposed memory time, and the communication/computation overlap (§6.3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// Exposed communication and overlap per kept step (§6.3 "both per step too").
struct StepOverlap {
  std::int64_t step_number = 0;
  std::int64_t communication_ns = 0;          // |U(comm) ∩ step|
  std::int64_t exposed_communication_ns = 0;  // |U(comm) ∩ step − U(comp)|
  std::optional<double> overlap_share;        // absent without communication in the step
};

struct DeviceTemporal {
  std::int32_t device = -1;
  std::int64_t window_ns = 0;
  std::int64_t busy_ns = 0;                // |U(kernels, memcpy, memset) ∩ W|
  std::int64_t idle_ns = 0;                // window - busy
  std::int64_t compute_ns = 0;             // |U(computation) ∩ W|
  std::int64_t non_compute_ns = 0;         // busy - compute
  std::int64_t communication_only_ns = 0;  // |U(comm) ∩ W − U(comp)|: exposed communication
  std::int64_t memory_only_ns = 0;         // |U(mem) ∩ W − U(comp) − U(comm)|
  std::int64_t communication_ns = 0;       // |U(comm) ∩ W|
  std::int64_t memory_ns = 0;              // |U(mem) ∩ W|
  std::int64_t overlap_ns = 0;             // |U(comp) ∩ U(comm) ∩ W|
  // |comp ∩ comm| / |comm| (HTA's figure, unrounded); absent without communication.
  std::optional<double> overlap_share;
  // TraceLens `gpu_timeline` (§13) with native classes: from the first to the last activity
  // inside W; compute + communication_only + memory_only + timeline_idle = timeline_span.
  std::int64_t timeline_span_ns = 0;
  std::int64_t timeline_idle_ns = 0;
  std::int64_t activities = 0;  // overlapping W
  // Activity that lies (partly) outside W: not dropped silently (§0.7). An activity straddling
  // a window edge is counted once, with the part outside.
  std::int64_t outside_window_activities = 0;
  std::int64_t outside_window_ns = 0;
  std::vector<StepOverlap> steps;  // this device, per kept step

  [[nodiscard]] double share(std::int64_t part_ns) const {
    return window_ns > 0 ? static_cast<double>(part_ns) / static_cast<double>(window_ns) : 0.0;
  }
};

struct GpuTemporalResult {
  bool applicable = false;
  std::string not_applicable_reason;    // "no GPU activity"
  std::vector<DeviceTemporal> devices;  // sorted by device id
  std::vector<StepOverlap> steps;       // all devices of the rank together
};

// Native: per device over the window W of `steps`, native activity classes (kernel_class.h).
GpuTemporalResult compute_gpu_temporal(const Trace& trace, const StepsResult& steps,
                                       const AnalysisOptions& options);

}  // namespace stepscope
