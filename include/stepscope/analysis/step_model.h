// The kept steps as a graph the replay can re-time (docs/metrics/17-critical-path-and-what-if.md):
// the host's calls in order (data-loader fetches, launch calls, blocking calls) with the host
// time between them, and the device work each launch puts on its stream's queue. Edges: host
// order, launch → activity (correlation), stream order, and a blocking call waiting for the work
// launched before it. What the trace does not show (cross-stream event waits, activities with no
// launch call) is counted, so the answer can say how far it is bounded.
#pragma once

#include <cstdint>
#include <vector>

#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class HostCallKind : std::uint8_t { kLoaderFetch, kLaunch, kBlocking };

struct HostCall {
  HostCallKind kind = HostCallKind::kLaunch;
  EventIndex event = kNoEvent;
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  // Blocking calls: what the call cost after the work it waited for had finished (its whole
  // duration when it did not wait).
  std::int64_t after_wait_ns = 0;
  // Blocking calls: the activity it waited for (the latest to finish of those launched before it
  // that finished before it returned), or -1.
  std::int32_t awaited = -1;
  // A memory copy call. One that returns only after its copy has finished (a copy to pageable
  // memory, `.item()`) blocks like a sync, and is modelled as one.
  bool copies = false;
  std::uint32_t first_activity = 0;  // into StepModel::activities
  std::uint32_t activity_count = 0;
  [[nodiscard]] std::int64_t end_ns() const { return start_ns + dur_ns; }
};

struct ModelledActivity {
  EventIndex event = kNoEvent;
  std::uint32_t queue = 0;  // index into StepModels::queues
  std::uint32_t call = 0;   // index into StepModel::calls
  std::int64_t dur_ns = 0;
  std::int64_t latency_ns = 0;  // from the call's start to the activity's start, queueing aside
};

// A run of consecutive kept steps, replayed as one: work launched in one step may run in the
// next (the host runs ahead of the device), so a step alone would leave out the overlap.
struct StepModel {
  std::vector<const Step*> steps;                  // consecutive numbers, all kept
  std::int64_t start_ns = 0;                       // the first step's host start
  std::int64_t end_ns = 0;                         // the last step's host end
  [[nodiscard]] std::int64_t measured_ns() const;  // the steps' durations, summed
  std::vector<HostCall> calls;                     // in start order
  std::vector<ModelledActivity> activities;        // grouped by call, in launch order
  // The outermost ops and annotations of the step on the modelled threads, in start order: the
  // host time between calls is named after them.
  std::vector<EventIndex> top_ops;
};

struct QueueKey {
  std::int32_t device = -1;
  std::int64_t stream = -1;
  bool operator==(const QueueKey&) const = default;
};

struct StepModels {
  std::vector<StepModel> runs;  // the kept steps, in runs of consecutive ones
  std::vector<QueueKey> queues;
  std::vector<std::uint32_t> host_threads;  // the threads whose calls are modelled
  // Edges the trace does not show, counted over the kept steps.
  std::int64_t unlinked_activities = 0;  // device work in the steps with no launch call
  std::int64_t cross_stream_waits = 0;   // cudaStreamWaitEvent calls: the wait is not modelled
  bool latency_assumed = false;  // no activity showed its launch latency: kAssumedLaunchLatencyNs
};

// The launch latency taken when no queue ever ran dry: CUDA's usual few microseconds from a
// launch call to its kernel starting on an idle GPU.
inline constexpr std::int64_t kAssumedLaunchLatencyNs = 5'000;

// Kept steps only; an empty result when there are none.
StepModels build_step_models(const Trace& trace, const StepsResult& steps);

}  // namespace stepscope
