// The operator table, like torch.profiler's key_averages()
// (docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12): per op name (and per input
// shape on request) calls, self and total CPU time, self and total device time, with each device
// activity attributed to the op that launched it; and the device activities by name
// ("kernel rows"), as PyTorch's table lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

struct OperatorRow {
  std::string name;
  std::string input_dims;  // with group_by_input_shape: raw JSON as the trace writes it
  std::string input_types;
  EventClass event_class = EventClass::kOp;  // kOp, kAnnotation, kRuntime or kDriver
  bool unattributed = false;                 // the one row of device activity that no op launched
  std::int64_t calls = 0;                    // for the unattributed row: its activities
  std::int64_t self_cpu_ns = 0;
  std::int64_t total_cpu_ns = 0;
  std::int64_t self_device_ns = 0;  // sums of activity durations, not unions
  std::int64_t total_device_ns = 0;
  std::int64_t avg_self_cpu_ns = 0;  // sum / calls, rounded to the nearest ns
  std::int64_t avg_total_cpu_ns = 0;
  std::int64_t avg_self_device_ns = 0;
  std::int64_t avg_total_device_ns = 0;
  std::int64_t device_activities = 0;  // attributed to the op itself
  double self_cpu_share = 0;           // of all rows' self CPU time
  double self_device_share = 0;        // of all device time in scope (unattributed included)
};

// One row per device activity name (kernel, memcpy, memset, accelerator kernel).
struct DeviceActivityRow {
  std::string name;
  EventClass event_class = EventClass::kKernel;
  std::int64_t count = 0;
  std::int64_t device_ns = 0;  // sum of durations
  std::int64_t avg_device_ns = 0;
  std::int64_t min_device_ns = 0;
  std::int64_t max_device_ns = 0;
  std::int64_t unattributed_count = 0;  // instances that no op launched
  double device_share = 0;              // of all device time in scope
};

struct OperatorsResult {
  bool applicable = false;
  std::string not_applicable_reason;
  bool grouped_by_input_shape = false;
  // Ops starting here are counted (with the device time attributed to them); nullopt: the
  // whole trace. See compute_operators for the choice.
  std::optional<Interval> scope;
  std::vector<OperatorRow> rows;  // by self device time, then self CPU time, largest first
  std::vector<DeviceActivityRow> device_rows;  // by device time, largest first
  std::int64_t self_cpu_total_ns = 0;
  std::int64_t device_total_ns = 0;         // attributed + unattributed = Σ device_rows
  std::int64_t attributed_device_ns = 0;    // = Σ self_device_ns of the op rows
  std::int64_t unattributed_device_ns = 0;  // activities with no op (e.g. NCCL kernels)
  std::int64_t unattributed_activities = 0;
  double attributed_device_share = 0;  // attributed / device_total
  // How attributed activities found their op: the op's External id, or (older traces whose
  // External id is a correlation id) the op enclosing the launch call.
  std::int64_t attributed_by_external_id = 0;
  std::int64_t attributed_through_launch_call = 0;
  std::int64_t merged_single_children = 0;  // same-name only children folded into their parent
  std::int64_t ops_outside_scope =
      0;  // not dropped silently (docs/metrics/00-conventions-for-every-figure.md §0.7)
};

// Counts an op in the step that contains its start: with kept steps, ops starting in
// [min(W.start, first kept step's host start), W.end) — rebasing can move W's start past the
// first step's host start, which would cut that step's first ops; without kept steps, every op.
// A device activity counts with the op it is attributed to, wherever it runs; an unattributed
// activity counts when it starts in the same scope.
OperatorsResult compute_operators(const Trace& trace, const StepsResult& steps,
                                  const AnalysisOptions& options);

}  // namespace stepscope
