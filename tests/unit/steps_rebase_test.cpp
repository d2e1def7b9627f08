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

}  // namespace
}  // namespace stepscope
