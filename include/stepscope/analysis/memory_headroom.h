// How close each GPU came to its capacity: the peak of the memory curve (memory_curve.h) against
// the device's total memory (Kineto `deviceProperties[].totalGlobalMem`), and what was live at
// the allocation peak, split by lifetime into memory that outlives a step (parameters, gradients,
// optimizer state) and memory a step allocates and frees again (activations, temporaries).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/memory_curve.h"
#include "stepscope/analysis/phases.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// Bytes live at the peak that one op allocated, for the evidence of a finding.
struct HeldBy {
  std::string op;  // "(no op)" when no op spans the allocation
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  std::int64_t first_time_ns = 0;
  std::int64_t last_time_ns = 0;
};

struct DeviceHeadroom {
  std::int16_t device_id = -1;
  std::string label;                // "GPU 0"
  std::int64_t total_bytes = 0;     // the device's memory (deviceProperties)
  std::int64_t peak_allocated = 0;  // bytes, the memory curve's allocation peak
  std::int64_t peak_reserved = -1;  // bytes, the reservation peak; -1 when not recorded
  // The larger of the two peaks: what the process took from the device. The reservation is what
  // a new cudaMalloc competes with; the CUDA context (a few hundred MiB) is in neither.
  std::int64_t peak_bytes = 0;
  std::int64_t headroom_bytes = 0;  // total - peak (negative: the trace's totals exceed it)
  double headroom_share = 0;        // of total_bytes

  // Where the allocation peak happened.
  std::int64_t peak_time_ns = 0;
  std::string peak_op;  // innermost op around the peak record; empty when none
  std::optional<Phase> peak_phase;
  std::optional<std::int64_t> peak_step;

  // What was live at the allocation peak, by lifetime. Long-lived: allocated before the trace's
  // first record, or alive across a step boundary (allocated before the peak's step began, or
  // still live when it ended). Step-scoped: allocated in the peak's step and freed before its
  // end. Without a step around the peak: long-lived = never freed in the trace.
  std::int64_t long_lived_bytes = 0;
  std::int64_t before_trace_bytes = 0;  // part of long_lived_bytes: no record allocates it
  std::int64_t step_scoped_bytes = 0;
  std::int64_t step_scoped_forward_bytes = 0;  // part of it allocated inside the forward pass
  std::vector<HeldBy> long_lived_by_op;        // largest first, at most `top`
  std::vector<HeldBy> step_scoped_by_op;
};

struct MemoryHeadroomResult {
  // CUDA devices with memory records and a known total memory, by id.
  std::vector<DeviceHeadroom> devices;
};

MemoryHeadroomResult compute_memory_headroom(const Trace& trace, const StepsResult& steps,
                                             const MemoryCurveResult& memory, int top);

}  // namespace stepscope
