// Device rebasing of profiler steps (docs/metrics/01 §1.4) when streams run launches out of call
// order: each call's device work belongs to the step whose host span holds the call.
#include <gtest/gtest.h>

#include "stepscope/analysis/steps.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TEST(StepsRebase, ACallsLateWorkOnAnotherStreamStaysWithItsStep) {
  // Step 1 launches A (stream 7, runs 300-310) then B (stream 8, runs 150-160); step 2 launches
  // C (stream 8, runs 170-400). The device runs B, C, A: first-activity order is not call order.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .step(2, 100, 100)
                          .runtime("cudaLaunchKernel", 10, 5, 1)
                          .kernel("a", 300, 10, 1, 7)
                          .runtime("cudaLaunchKernel", 20, 5, 2)
                          .kernel("b", 150, 10, 2, 8)
                          .runtime("cudaLaunchKernel", 120, 5, 3)
                          .kernel("c", 170, 230, 3, 8)
                          .load();
  const StepsResult steps = find_steps(trace, {});
  ASSERT_TRUE(steps.rebased);
  ASSERT_EQ(steps.steps.size(), 2U);
  EXPECT_EQ(steps.steps[0].device_activities, 2);
  EXPECT_EQ(steps.steps[1].device_activities, 1);
  EXPECT_EQ(steps.steps[0].end_ns, 310'000);  // A's end, though A ran last
  EXPECT_EQ(steps.steps[1].start_ns, 310'000);
  EXPECT_EQ(steps.steps[1].end_ns, 400'000);
}

TEST(StepsRebase, OverlappingHostStepsAreNoted) {
  // Step 2 starts 40 µs before step 1 ends: kept as recorded, and said; touching steps are not.
  const Trace trace = TraceFixture().step(1, 0, 100).step(2, 60, 100).step(3, 160, 100).load();
  const StepsResult steps = find_steps(trace, {});
  ASSERT_EQ(steps.steps.size(), 3U);
  ASSERT_EQ(steps.notes.size(), 1U);
  EXPECT_EQ(steps.notes[0],
            "ProfilerStep#2 starts 40.0 µs before ProfilerStep#1 ends (steps of one thread follow "
            "each other): both are kept as recorded, so that time counts in both");
}

TEST(StepsRebase, ACallOfSeveralActivitiesSpansThemAll) {
  // One call (a graph launch) owns three kernels on two streams; the step ends with the last.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .step(2, 100, 100)
                          .runtime("cudaGraphLaunch", 10, 5, 1)
                          .kernel("g1", 50, 10, 1, 7)
                          .kernel("g2", 60, 70, 1, 8)
                          .kernel("g3", 140, 10, 1, 7)
                          .runtime("cudaLaunchKernel", 110, 5, 2)
                          .kernel("k", 160, 10, 2, 7)
                          .load();
  const StepsResult steps = find_steps(trace, {});
  ASSERT_EQ(steps.steps.size(), 2U);
  EXPECT_EQ(steps.steps[0].device_activities, 3);
  EXPECT_EQ(steps.steps[0].end_ns, 150'000);
  EXPECT_EQ(steps.steps[1].device_activities, 1);
  EXPECT_EQ(steps.steps[1].start_ns, 150'000);
  EXPECT_EQ(steps.steps[1].end_ns, 200'000);
}

TEST(StepsRebase, TwoThreadsMatchAsOne) {
  // Enough calls that the halves split inside the trace; graph launches own kernels on both
  // streams, and the device lags the host so that calls of one step run during the next.
  TraceFixture fixture;
  constexpr int kSteps = 4;
  constexpr int kCallsPerStep = 120;
  std::int64_t correlation = 1;
  for (int s = 0; s < kSteps; ++s) {
    const double step_start = 1000.0 * s;
    fixture.step(s + 1, step_start, 1000);
    for (int c = 0; c < kCallsPerStep; ++c) {
      const double call = step_start + 2 + 8 * c;
      const bool graph = c % 10 == 3;
      fixture.runtime(graph ? "cudaGraphLaunch" : "cudaLaunchKernel", call, 4, correlation);
      const double device = call + 300 + (c % 7) * 5;
      fixture.kernel("k", device, 3, correlation, c % 2 == 0 ? 7 : 8);
      if (graph) fixture.kernel("g", device + 4, 3, correlation, 9);
      ++correlation;
    }
  }
  const Trace trace = fixture.load();
  AnalysisOptions one;
  one.threads = 1;
  AnalysisOptions two;
  two.threads = 2;
  const StepsResult a = find_steps(trace, one);
  const StepsResult b = find_steps(trace, two);
  ASSERT_TRUE(a.rebased);
  ASSERT_EQ(a.steps.size(), static_cast<std::size_t>(kSteps));
  ASSERT_EQ(b.steps.size(), a.steps.size());
  std::int64_t activities = 0;
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(b.steps[i].start_ns, a.steps[i].start_ns) << i;
    EXPECT_EQ(b.steps[i].end_ns, a.steps[i].end_ns) << i;
    EXPECT_EQ(b.steps[i].device_activities, a.steps[i].device_activities) << i;
    EXPECT_EQ(b.steps[i].status, a.steps[i].status) << i;
    activities += a.steps[i].device_activities;
  }
  EXPECT_EQ(activities, kSteps * (kCallsPerStep + kCallsPerStep / 10));
  // Each step ends with its last call's work, past its host end.
  EXPECT_GT(a.steps[0].end_ns, a.steps[0].host_end_ns);
}

}  // namespace
}  // namespace stepscope
