// Memory over time from `[memory]` instant events
// (docs/metrics/11-memory-curve-from-memory-events.md §11): per device, the exact curve of
// allocated and reserved bytes, the peaks and what runs at the allocation peak, the per-step view
// that shows growth, and the allocations never freed. The curve is kept whole here; renderers
// down-sample it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/phases.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

struct MemoryPoint {
  std::int64_t time_ns = 0;
  std::int64_t allocated = 0;  // bytes, Total Allocated after the record
  std::int64_t reserved = 0;   // bytes, Total Reserved after the record; -1 when missing
  std::int64_t change = 0;     // bytes, the record's own Bytes (> 0 allocation, < 0 free)
};

// Memory allocated by one op (the innermost op on the allocating thread whose span contains the
// allocation) that is still live at a chosen moment.
struct LiveAllocations {
  std::string op;  // "(no op)" when no op spans the allocation
  std::int64_t bytes = 0;
  std::int64_t count = 0;
  std::int64_t first_time_ns = 0;  // earliest of these allocations, for the evidence
};

struct StepMemory {
  std::int64_t step = 0;  // ProfilerStep number
  bool kept = false;
  std::int64_t allocated_at_start = -1;  // bytes; -1 when no record is known before the step
  std::int64_t allocated_at_end = -1;
  std::int64_t peak_allocated = -1;  // over the records inside the step (host span)
};

struct DeviceMemory {
  std::int8_t device_type = 0;  // 0 CPU, 1 CUDA, others as written
  std::int16_t device_id = -1;
  std::string label;  // "CPU", "GPU 1", or "device type 7 id 0"
  std::int64_t records = 0;
  std::int64_t allocations = 0;
  std::int64_t frees = 0;
  std::int64_t never_freed = 0;  // allocations with no later free at their address
  std::int64_t never_freed_bytes = 0;
  std::vector<LiveAllocations> never_freed_by_op;  // largest first, at most `top`

  // Records with both totals; the curve and the figures below come from them.
  std::vector<MemoryPoint> curve;
  std::int64_t peak_allocated = -1;
  std::int64_t peak_allocated_time_ns = 0;  // the first record reaching the peak
  std::int64_t reserved_at_peak = -1;
  std::int64_t peak_reserved = -1;
  std::int64_t peak_reserved_time_ns = 0;
  std::int64_t first_allocated = -1;  // in time order
  // Allocated before the first record: tensors made before profiling started, which no op in
  // the trace can account for.
  std::int64_t allocated_before_first_record = -1;
  std::int64_t last_allocated = -1;
  // 1 - allocated / reserved at the allocation peak: bytes the caching allocator holds that no
  // tensor uses. Absent when nothing is reserved (CPU).
  std::optional<double> fragmentation_at_peak;
  std::int64_t reserved_increases = 0;  // records where Total Reserved grew: new segments
  std::int64_t reserved_decreases = 0;  // segments handed back (empty_cache, OOM retries)

  // What runs at the allocation peak.
  std::optional<std::int64_t> peak_step;            // ProfilerStep number
  EventIndex peak_op = kNoEvent;                    // innermost op around the peak record
  std::optional<Phase> peak_phase;                  // from the phase markers around that op
  std::vector<LiveAllocations> live_at_peak_by_op;  // largest first, at most `top`

  std::vector<StepMemory> steps;
};

struct MemoryCurveResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::int64_t origin_ns = 0;  // profiler start: the earliest event or record
                               // (docs/metrics/11-memory-curve-from-memory-events.md §11)
  // Per record of trace.memory: the innermost op on its thread spanning it, or kNoEvent.
  std::vector<EventIndex> op_of_record;
  std::vector<DeviceMemory> devices;  // GPUs by id, then CPU, then other types
};

[[nodiscard]] std::string device_label(std::int8_t device_type, std::int16_t device_id);

// `top` bounds the per-op tables; the curve and the per-step rows are complete.
MemoryCurveResult compute_memory_curve(const Trace& trace, const StepsResult& steps, int top);

// The device's memory record in effect at time t (the last at or before it); nullptr if none.
[[nodiscard]] const MemoryPoint* point_at(const DeviceMemory& device, std::int64_t t);

}  // namespace stepscope
