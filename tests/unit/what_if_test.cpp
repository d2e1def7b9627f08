#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/analysis/what_if.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

WhatIfResult replay(const Trace& trace, const WhatIfChange& change) {
  const RankAnalyses rank = analyze_rank(trace, AnalysisOptions{});
  return what_if(trace, rank.step_models, change, 10);
}

double class_ns(const CriticalPathResult& path, PathClass path_class) {
  for (const PathClassTime& time : path.classes) {
    if (time.path_class == path_class) return time.ns_per_step;
  }
  return 0;
}

// Three steps of 1000 µs: a kernel 5-400 µs; `loss.item()` copies and syncs at 302-406 µs,
// waiting for the kernel; the host then works until it launches a kernel that runs until 990 µs.
Trace steps_with_item() {
  TraceFixture fixture;
  std::int64_t correlation = 1;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("forward_kernel", t0 + 1, t0 + 5, 395);
    fixture.op("aten::item", t0 + 300, 110);
    fixture.runtime("cudaMemcpyAsync", t0 + 302, 3, correlation);
    fixture.memcpy("Memcpy DtoH (Device -> Pageable)", t0 + 400, 1, correlation++);
    fixture.runtime("cudaStreamSynchronize", t0 + 306, 100, correlation++);
    fixture.launched_kernel("backward_kernel", t0 + 600, t0 + 610, 380);
  }
  return fixture.load();
}

TEST(WhatIf, UnchangedReplayGivesTheRecordedStep) {
  const Trace trace = steps_with_item();
  const WhatIfResult result = replay(trace, WhatIfChange{});
  ASSERT_TRUE(result.before.applicable);
  EXPECT_EQ(result.before.steps, 3);
  EXPECT_DOUBLE_EQ(result.before.modelled_step_ns, 1'000'000);
  EXPECT_DOUBLE_EQ(result.before.measured_step_ns, 1'000'000);
}

TEST(WhatIf, RemovingTheSyncLetsTheHostRunAhead) {
  const Trace trace = steps_with_item();
  WhatIfChange change;
  change.no_syncs = true;
  const WhatIfResult result = replay(trace, change);
  // The sync waited from 306 µs until the copy ended at 401 µs and returned 5 µs later; without
  // the wait, everything after it on the host comes 95 µs earlier.
  EXPECT_DOUBLE_EQ(result.saving_ns(), 95'000);
  EXPECT_DOUBLE_EQ(result.predicted_step_ns, 905'000);
  EXPECT_GT(class_ns(result.before, PathClass::kCompute), 0);
}

TEST(WhatIf, CriticalPathRunsThroughTheKernelTheSyncWaitedFor) {
  const Trace trace = steps_with_item();
  const CriticalPathResult path = replay(trace, WhatIfChange{}).before;
  // Host: 0-1 (host), 1-6 launch, the kernel 5-400, the copy 400-401, 5 µs after the wait, then
  // host work to 600, the launch (5 µs) and host work to the step's end: the kernel and copy are
  // on the path, the sync's 100 µs are not.
  EXPECT_DOUBLE_EQ(class_ns(path, PathClass::kCompute), 395'000);
  EXPECT_DOUBLE_EQ(class_ns(path, PathClass::kMemory), 1'000);
  EXPECT_DOUBLE_EQ(class_ns(path, PathClass::kSync), 5'000);
  double total = 0;
  for (const PathClassTime& time : path.classes) total += time.ns_per_step;
  EXPECT_DOUBLE_EQ(total, path.modelled_step_ns);
}

TEST(WhatIf, CriticalPathEventsAreTheOnesThePathRunsThrough) {
  const Trace trace = steps_with_item();
  const RankAnalyses rank = analyze_rank(trace, AnalysisOptions{});
  const std::vector<EventIndex> on_path = critical_path_events(trace, rank.step_models);
  ASSERT_FALSE(on_path.empty());
  EXPECT_TRUE(std::is_sorted(on_path.begin(), on_path.end()));
  std::set<std::string_view> names;
  for (const EventIndex i : on_path) names.insert(trace.name_of(i));
  // The sync waits for the forward kernel and its copy; the backward kernel ends before the host.
  EXPECT_EQ(names.count("forward_kernel"), 1U);
  EXPECT_EQ(names.count("Memcpy DtoH (Device -> Pageable)"), 1U);
  EXPECT_EQ(names.count("cudaStreamSynchronize"), 1U);
  EXPECT_EQ(names.count("backward_kernel"), 0U);
}

// CPU-only steps of 1000 µs: a DataLoader fetch of 300 µs, then aten::mm for 400 µs.
Trace cpu_steps() {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 10, 300);
    fixture.op("aten::linear", t0 + 400, 450);
    fixture.op("aten::mm", t0 + 420, 400);
  }
  return fixture.load();
}

TEST(WhatIf, DataLoaderReadyAtOnceRemovesTheFetch) {
  const Trace trace = cpu_steps();
  WhatIfChange change;
  change.loader_left = 0;
  const WhatIfResult result = replay(trace, change);
  EXPECT_DOUBLE_EQ(result.saving_ns(), 300'000);
  EXPECT_DOUBLE_EQ(class_ns(result.before, PathClass::kDataLoading), 300'000);
  EXPECT_DOUBLE_EQ(class_ns(result.after, PathClass::kDataLoading), 0);
  ASSERT_FALSE(result.before.events.empty());
  EXPECT_EQ(result.before.events.front().name, "aten::linear");  // named after the top-level op
}

TEST(WhatIf, AFasterOpSavesItsShareOfHostTime) {
  const Trace trace = cpu_steps();
  WhatIfChange change;
  change.ops.push_back({"aten::mm", 2.0});
  EXPECT_DOUBLE_EQ(replay(trace, change).saving_ns(), 200'000);
  change.ops.front().op = "aten::nothing_like_it";
  EXPECT_DOUBLE_EQ(replay(trace, change).saving_ns(), 0);
}

TEST(WhatIf, FasterOpsMakeTheirKernelsShorter) {
  TraceFixture fixture;
  // Two steps of 100 µs on the host, 1000 µs apart; each launches a 900 µs kernel, which ends
  // the run. The path: both steps' host time, then the last kernel.
  for (int s = 0; s < 2; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 100);
    fixture.op("aten::mm", t0 + 1, 10, 1, 100 + s);
    fixture.runtime("cudaLaunchKernel", t0 + 2, 5, 50 + s, 1, 100 + s);
    fixture.kernel("gemm_kernel", t0 + 10, 900, 50 + s, 7, 0, 100 + s);
  }
  const Trace trace = fixture.load();
  WhatIfChange change;
  change.ops.push_back({"aten::mm", 3.0});
  const WhatIfResult result = replay(trace, change);
  EXPECT_DOUBLE_EQ(class_ns(result.before, PathClass::kCompute), 900'000 / 2.0);
  EXPECT_DOUBLE_EQ(class_ns(result.after, PathClass::kCompute), 300'000 / 2.0);
  // The kernel's 600 µs, and a third of the host's own time in aten::mm before the last launch
  // (its 10 µs less the 5 µs launch call in step 0, 1 µs in step 1): 4 µs over two steps.
  EXPECT_NEAR(result.saving_ns(), (600'000 + 4'000) / 2.0, 1.0);
}

TEST(WhatIf, OpSpeedupsParse) {
  const Result<OpSpeedup> op = parse_op_speedup("aten::mm=2.5x");
  ASSERT_TRUE(op.ok());
  EXPECT_EQ(op->op, "aten::mm");
  EXPECT_DOUBLE_EQ(op->factor, 2.5);
  EXPECT_TRUE(parse_op_speedup("a=b=3").ok());  // the last '=' splits
  EXPECT_FALSE(parse_op_speedup("aten::mm").ok());
  EXPECT_FALSE(parse_op_speedup("aten::mm=0x").ok());
  EXPECT_FALSE(parse_op_speedup("aten::mm=fast").ok());
  EXPECT_FALSE(parse_op_speedup("=2x").ok());
}

}  // namespace
}  // namespace stepscope
