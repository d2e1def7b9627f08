// The operator table, like torch.profiler's key_averages() (metrics.md §12): per op name (and
// per input shape on request) calls, self and total CPU time, self and total device time, with
// device activity attributed to the op that launched it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

struct OperatorRow {
  std::string name;
  std::string input_dims;  // with group_by_input_shape; raw JSON as the trace writes it
  std::string input_types;
  EventClass event_class = EventClass::kOp;
  std::int64_t calls = 0;
  std::int64_t self_cpu_ns = 0;
  std::int64_t total_cpu_ns = 0;
  std::int64_t self_device_ns = 0;  // sums of activity durations, not unions
  std::int64_t total_device_ns = 0;
  std::int64_t device_activities = 0;  // launched by the op itself
  double self_cpu_share = 0;           // of all rows' self CPU time
  double self_device_share = 0;        // of all attributed device time
};

struct OperatorTable {
  bool applicable = false;
  std::string not_applicable_reason;
  bool grouped_by_input_shape = false;
  std::vector<OperatorRow> rows;  // by self device time, then self CPU time, largest first
  std::int64_t self_cpu_total_ns = 0;
  std::int64_t attributed_device_ns = 0;
  std::int64_t unattributed_device_ns = 0;  // activities with no op (e.g. NCCL kernels)
  std::int64_t unattributed_activities = 0;
  double attributed_device_share = 0;
  std::int64_t merged_single_children = 0;  // same-name only children folded into their parent
};

// Ops counted where they start: inside W when the trace has kept steps, else the whole trace.
OperatorTable compute_operators(const Trace& trace, const StepsResult& steps,
                                const AnalysisOptions& options);

}  // namespace stepscope
