// The step's critical path, and the step re-timed under a change
// (docs/metrics/17-critical-path-and-what-if.md). Both replay the step graph of step_model.h:
// unchanged, the replay gives the modelled step and the chain of events that sets its length;
// changed (data loading at once, syncs gone, cheaper launches, faster ops), the step it would
// take. A finding's expected gain is the what-if of its fix.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/step_model.h"
#include "stepscope/error.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class PathClass : std::uint8_t {
  kHostOps,        // host work between calls: Python, op dispatch, CPU kernels
  kDataLoading,    // waiting in a DataLoader fetch
  kLaunchCalls,    // the launch calls themselves
  kLaunchLatency,  // from a launch call to its work starting on an idle queue
  kSync,           // blocking calls, after the work they waited for had finished
  kCompute,        // device computation
  kCommunication,  // collectives and peer-to-peer kernels
  kMemory,         // copies and fills
};
inline constexpr std::size_t kPathClassCount = 8;
[[nodiscard]] std::string_view to_string(PathClass path_class);

struct PathClassTime {
  PathClass path_class = PathClass::kHostOps;
  double ns_per_step = 0;
  double share = 0;  // of the modelled step
};

struct PathEvent {
  std::string name;
  PathClass path_class = PathClass::kHostOps;
  double ns_per_step = 0;
  std::int64_t count = 0;  // times on the path, all steps together
};

struct CriticalPathResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::int64_t steps = 0;
  double measured_step_ns = 0;         // mean of the kept steps as the trace shows them
  double modelled_step_ns = 0;         // the same steps replayed: how well the graph explains them
  std::vector<PathClassTime> classes;  // every class on the path, longest first
  std::vector<PathEvent> events;       // the longest on the path, longest first
  std::int64_t unlinked_activities = 0;
  std::int64_t cross_stream_waits = 0;
  std::vector<std::string> bounds;  // edges the trace lacks, and what that means for the answer
};

struct OpSpeedup {
  std::string op;     // an op or annotation name, exactly: its host time and its device work
  double factor = 1;  // N times faster
};

// Device work of one kind, wherever it runs.
enum class KernelGroup : std::uint8_t {
  kFp32Matmul,     // fp32 GEMM and convolution kernels on CUDA cores
  kCommunication,  // collectives and peer-to-peer kernels
};
[[nodiscard]] std::string_view to_string(KernelGroup group);

struct KernelSpeedup {
  KernelGroup group = KernelGroup::kFp32Matmul;
  double factor = 1;  // N times faster
};

struct WhatIfChange {
  double loader_left = 1;       // share of today's data-loading wait left (0: the batch is ready)
  bool no_syncs = false;        // blocking calls return without waiting for the device
  std::int64_t launch_ns = -1;  // each launch call costs at most this (CUDA graphs); -1: as is
  std::vector<OpSpeedup> ops;
  std::vector<KernelSpeedup> kernels;
  // fp32 matmul kernels on tensor cores at the device's half-precision peak, with autocast's
  // casts (analysis/tensor_core_change.h)
  bool tensor_cores = false;
  [[nodiscard]] bool empty() const;
  // What is simulated, in words: "DataLoader ready at once; blocking syncs removed".
  [[nodiscard]] std::string describe() const;
};

struct WhatIfResult {
  std::string change;  // WhatIfChange::describe()
  CriticalPathResult before;
  CriticalPathResult after;
  // The measured step less the modelled saving, so the model's own error cancels.
  double predicted_step_ns = 0;
  [[nodiscard]] double saving_ns() const {
    return before.modelled_step_ns - after.modelled_step_ns;
  }
};

CriticalPathResult compute_critical_path(const Trace& trace, const StepModels& models,
                                         std::size_t top);
WhatIfResult what_if(const Trace& trace, const StepModels& models, const WhatIfChange& change,
                     std::size_t top);
// The trace's events on the critical path of the kept steps replayed unchanged: device
// activities, host calls (launches, blocking calls, DataLoader fetches) and the top-level ops
// whose host time lies on it. Sorted, each once.
std::vector<EventIndex> critical_path_events(const Trace& trace, const StepModels& models);
// The modelled step (ns, mean over the kept steps) under `change`, without the path: what a
// finding's gain needs, against CriticalPathResult::modelled_step_ns of the unchanged steps.
double modelled_step_ns(const Trace& trace, const StepModels& models, const WhatIfChange& change);

// "aten::mm=2x", "aten::mm=2", "fused_adam=1.5x": the op and how many times faster (> 0).
Result<OpSpeedup> parse_op_speedup(std::string_view text);
// "fp32-matmul=4x", "communication=2x": the kernel group and how many times faster (> 0).
Result<KernelSpeedup> parse_kernel_speedup(std::string_view text);

}  // namespace stepscope
