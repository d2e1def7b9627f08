// Native launch-queue length (docs/metrics/08-hta-queue-length-summary.md §8) against the figures
// of conformance.md §5.
//
// HTA's scope is not the native one: HTA keeps the launches whose call starts before the last
// host step (its step filter, docs/metrics/00-conventions-for-every-figure.md §0.6), native mode
// integrates every launch and reports over the kept, device-rebased steps W. So the HTA figures are
// checked through a window that reproduces HTA's scope, [first event, host start of the last step):
// before that instant both running sums see the same points, and after it HTA has only decrements,
// so HTA's maximum and launch count (samples / 2) are what this window gives. Where the launch
// lists differ (native adds graph launches and blocking copies) the difference is checked to come
// from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "stepscope/analysis/launch_class.h"
#include "stepscope/analysis/launches.h"
#include "stepscope/analysis/queue_length.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

struct Loaded {
  TraceSet set;
  StepsResult steps;
  const Trace& trace() const { return set.ranks.front(); }
};

Loaded load(const std::string& folder) {
  Loaded loaded{testing::load_shared(folder), {}};
  EXPECT_FALSE(loaded.set.ranks.empty());
  loaded.steps = find_steps(loaded.trace(), {});
  return loaded;
}

// HTA's scope as a window: from the first event to the start of the last host step.
StepsResult hta_scope(const Loaded& loaded) {
  StepsResult scope;
  scope.window =
      Interval{loaded.trace().events.start_ns.front(), loaded.steps.steps.back().host_start_ns};
  return scope;
}

const StreamQueueLength* stream(const QueueLengthResult& r, std::int64_t id) {
  for (const StreamQueueLength& q : r.streams) {
    if (q.stream == id) return &q;
  }
  return nullptr;
}

TEST(QueueLengthConformance, AmdTraceSixteenHipLaunchesInBothScopes) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // HTA: rank 0 stream 0, 32 samples, max 1. W holds all 16 launch calls and their activity.
  const Loaded amd = load("hta/amd_trace");
  const QueueLengthResult r = compute_queue_length(amd.trace(), amd.steps, {});
  ASSERT_EQ(r.streams.size(), 1U);
  const StreamQueueLength& q = r.streams[0];
  EXPECT_EQ(q.stream, 0);
  EXPECT_EQ(q.samples, 32);
  EXPECT_EQ(q.launches, 16);
  EXPECT_EQ(q.max_depth, 1);
  EXPECT_EQ(q.depth_at_window_start, 0);
  EXPECT_EQ(q.min_depth, 0);
}

TEST(QueueLengthConformance, NsResolutionTraceReachesTheLimitMinusTwo) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const Loaded ns = load("hta/ns_resolution_trace");
  // No graph launches or blocking copies here: the launch lists agree with HTA's.
  const LaunchesResult launches = compute_launches(ns.trace(), ns.steps, {});
  EXPECT_EQ(launches.of(LaunchClass::kGraphLaunch).count, 0);
  EXPECT_EQ(launches.of(LaunchClass::kSyncMemory).count, 0);
  const QueueLengthResult hta = compute_queue_length(ns.trace(), hta_scope(ns), {});
  ASSERT_NE(stream(hta, 7), nullptr);
  EXPECT_EQ(stream(hta, 7)->max_depth, 1022);
  EXPECT_EQ(stream(hta, 7)->launches, 9752 / 2);
  EXPECT_EQ(hta.streams.size(), 1U);
  // Native W (steps 101-105, the last step kept).
  const QueueLengthResult native = compute_queue_length(ns.trace(), ns.steps, {});
  ASSERT_NE(stream(native, 7), nullptr);
  EXPECT_EQ(stream(native, 7)->max_depth, 1022);
  EXPECT_EQ(stream(native, 7)->time_at_limit_ns, 0);
}

// HTA's queue list has no cudaGraphLaunch; native counts one entry per graph launch and stream.
struct GraphLaunches {
  std::int64_t count = 0;              // graph launch calls with activity on the stream
  std::int64_t max_depth_without = 0;  // the queue rebuilt without them: HTA's list
};

GraphLaunches graph_launches_on(const Trace& trace, std::int64_t stream_id, Interval window) {
  const EventTable& e = trace.events;
  std::vector<std::pair<std::int64_t, int>> points;
  GraphLaunches graph;
  std::set<EventIndex> graph_calls;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_device_activity(e.event_class[i]) || e.launcher[i] == kNoEvent) continue;
    if (trace.activity_stream(i) != stream_id) continue;
    const std::optional<LaunchClass> c = classify_launch(trace.name_of(e.launcher[i]));
    if (!c) continue;
    const std::int64_t call_start = e.start_ns[e.launcher[i]];
    if (*c == LaunchClass::kGraphLaunch) {
      if (call_start >= window.start && call_start < window.end) graph_calls.insert(e.launcher[i]);
      continue;
    }
    points.emplace_back(call_start, +1);
    points.emplace_back(e.start_ns[i], -1);
  }
  graph.count = static_cast<std::int64_t>(graph_calls.size());
  std::sort(points.begin(), points.end());  // decrements first at equal times
  std::int64_t depth = 0;
  for (const auto& [time, delta] : points) {
    if (time >= window.end) break;
    depth += delta;
    graph.max_depth_without = std::max(graph.max_depth_without, depth);
  }
  return graph;
}

TEST(QueueLengthConformance, NegativeQueueTraceDiffersFromHtaByItsGraphLaunches) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const Loaded nq = load("hta/negative_queue_length_values_check");
  const StepsResult scope = hta_scope(nq);
  const QueueLengthResult hta = compute_queue_length(nq.trace(), scope, {});
  // HTA: samples 56, 592, 56, 32, 32 on streams 25, 27, 84, 285, 363, each twice the launches.
  for (const auto& [id, samples] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {25, 56}, {27, 592}, {84, 56}, {285, 32}, {363, 32}}) {
    ASSERT_NE(stream(hta, id), nullptr) << id;
    EXPECT_EQ(stream(hta, id)->launches, samples / 2) << id;
  }
  EXPECT_EQ(stream(hta, 25)->max_depth, 4);
  EXPECT_EQ(stream(hta, 27)->max_depth, 17);
  EXPECT_EQ(stream(hta, 84)->max_depth, 3);
  EXPECT_EQ(stream(hta, 285)->max_depth, 4);
  EXPECT_EQ(stream(hta, 363)->max_depth, 4);
  // Stream 7: HTA 9,680 samples (4,840 launches), max 946. Native adds the CUDA-graph
  // launches queued on that stream, which deepen the queue to 958.
  const StreamQueueLength* s7 = stream(hta, 7);
  ASSERT_NE(s7, nullptr);
  const GraphLaunches graph = graph_launches_on(nq.trace(), 7, *scope.window);
  EXPECT_GT(graph.count, 0);
  EXPECT_EQ(s7->launches - graph.count, 9680 / 2);
  EXPECT_EQ(graph.max_depth_without, 946);
  EXPECT_EQ(s7->max_depth, 958);
  // Native W: the same deepest point lies inside the kept steps.
  const QueueLengthResult native = compute_queue_length(nq.trace(), nq.steps, {});
  ASSERT_NE(stream(native, 7), nullptr);
  EXPECT_EQ(stream(native, 7)->max_depth, 958);
  EXPECT_LT(stream(native, 7)->max_depth, kLaunchQueueLimit);
}

// The launch names of HTA's queue analysis (hta/common/trace_symbol_table.py@f4d0062c
// get_runtime_launch_events_mask); native mode knows more
// (docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7).
bool on_hta_queue_list(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",     "cuLaunchKernelEx",
      "cudaMemcpyAsync",  "cudaMemsetAsync",     "hipLaunchKernel",    "hipExtModuleLaunchKernel",
      "hipMemcpyAsync",   "hipMemsetAsync",      "hipMemcpyWithStream"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end() ||
         name.starts_with("runFunction");
}

// Queue entries native mode adds on `stream_id` in `window` for calls HTA's list leaves out:
// one per activity, but one per graph launch (queue_length.h).
std::int64_t native_only_launches(const Trace& trace, std::int64_t stream_id, Interval window) {
  const EventTable& e = trace.events;
  std::set<EventIndex> graph_calls;
  std::int64_t extra = 0;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_device_activity(e.event_class[i]) || e.launcher[i] == kNoEvent) continue;
    const EventIndex call = e.launcher[i];
    const std::optional<LaunchClass> c = classify_launch(trace.name_of(call));
    if (trace.activity_stream(i) != stream_id || !c) continue;
    const bool inside = e.start_ns[call] >= window.start && e.start_ns[call] < window.end;
    if (!inside || on_hta_queue_list(trace.name_of(call))) continue;
    if (*c == LaunchClass::kGraphLaunch) {
      graph_calls.insert(call);
    } else {
      ++extra;
    }
  }
  return extra + static_cast<std::int64_t>(graph_calls.size());
}

struct HtaQueueRow {
  const char* folder;
  std::int64_t rank;
  std::int64_t stream;
  std::int64_t samples;
  std::int64_t max;
};

TEST(QueueLengthConformance, EveryHtaQueueRowInHtasScope) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // conformance.md §5, "Queue length per stream" of every trace.
  const std::vector<HtaQueueRow> rows = {
      {"hta/critical_path/alexnet", 0, 7, 182, 18}, {"hta/critical_path/alexnet", 0, 20, 14, 2},
      {"hta/df_index_resolver", 1, 7, 32432, 73},   {"hta/df_index_resolver", 1, 14, 3232, 20},
      {"hta/nccl_parser_config", 0, 7, 5004, 10},   {"hta/nccl_parser_config", 0, 40, 28, 1},
      {"hta/sampled_two_ranks", 0, 7, 1052, 76},    {"hta/sampled_two_ranks", 0, 23, 126, 4},
      {"hta/sampled_two_ranks", 0, 25, 16, 8},      {"hta/sampled_two_ranks", 0, 84, 8, 1},
      {"hta/sampled_two_ranks", 0, 203, 2, 1},      {"hta/sampled_two_ranks", 1, 7, 1002, 75},
      {"hta/sampled_two_ranks", 1, 23, 126, 2},     {"hta/sampled_two_ranks", 1, 25, 16, 8},
      {"hta/sampled_two_ranks", 1, 84, 8, 1},       {"hta/trace_diff/control", 3, 7, 14940, 287},
      {"hta/trace_diff/control", 3, 20, 470, 10},   {"hta/trace_diff/control", 3, 21, 100, 2},
      {"hta/trace_diff/control", 3, 22, 240, 22},   {"hta/trace_diff/test", 1, 7, 15800, 1013},
      {"hta/trace_diff/test", 1, 14, 480, 9},       {"hta/trace_diff/test", 1, 15, 100, 5},
      {"hta/trace_diff/test", 1, 16, 240, 23},
  };
  std::string loaded_folder;
  TraceSet set;
  for (const HtaQueueRow& row : rows) {
    if (row.folder != loaded_folder) {
      set = testing::load_shared(row.folder);
      loaded_folder = row.folder;
    }
    const Trace* trace = nullptr;
    for (const Trace& t : set.ranks) trace = t.rank == row.rank ? &t : trace;
    ASSERT_NE(trace, nullptr) << row.folder << " rank " << row.rank;
    const StepsResult steps = find_steps(*trace, {});
    // Fewer than two step names: HTA applies no step filter, the whole trace is its scope.
    StepsResult scope;
    scope.window = steps.steps.size() >= 2
                       ? Interval{trace->events.start_ns.front(), steps.steps.back().host_start_ns}
                       : Interval{trace->events.start_ns.front(), INT64_MAX / 2};
    const QueueLengthResult r = compute_queue_length(*trace, scope, {});
    const StreamQueueLength* q = stream(r, row.stream);
    ASSERT_NE(q, nullptr) << row.folder << " stream " << row.stream;
    const std::int64_t extra = native_only_launches(*trace, row.stream, *scope.window);
    EXPECT_EQ(q->launches - extra, row.samples / 2) << row.folder << " stream " << row.stream;
    if (extra == 0) {
      EXPECT_EQ(q->max_depth, row.max) << row.folder << " stream " << row.stream;
    } else {
      EXPECT_GE(q->max_depth, row.max) << row.folder << " stream " << row.stream;
    }
  }
}

}  // namespace
}  // namespace stepscope
