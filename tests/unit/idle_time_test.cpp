#include <gtest/gtest.h>

#include "stepscope/analysis/idle_time.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TEST(IdleTime, GapsAreClassifiedByWhenTheNextLaunchCame) {
  // One step 0-200 µs on stream 7:
  //   k1 10-20 (launched at 1); k2 launched at 5, runs 30-40: gap 10 µs, launched before the
  //   gap -> kernel wait; k3 launched at 60, runs 70-80: the launch came after k2 ended -> host
  //   wait 30 µs; k4 launched at 61, runs 150-160: gap 70 µs, launched early -> other;
  //   k5 has no launch call: unlinked gap 10 µs.
  const Trace trace = TraceFixture()
                          .step(1, 0, 200)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("k1", 10, 10, 1)
                          .runtime("cudaLaunchKernel", 5, 1, 2)
                          .kernel("k2", 30, 10, 2)
                          .runtime("cudaLaunchKernel", 60, 1, 3)
                          .kernel("k3", 70, 10, 3)
                          .runtime("cudaLaunchKernel", 61, 1, 4)
                          .kernel("k4", 150, 10, 4)
                          .kernel("k5", 170, 10, 99)
                          .load();
  const IdleTimeResult r = compute_idle_time(trace, find_steps(trace, {}), {});
  ASSERT_EQ(r.streams.size(), 1U);
  const StreamIdle& s = r.streams[0];
  EXPECT_EQ(s.activities, 5);
  EXPECT_EQ(s[IdleCause::kKernelWait].ns, 10'000);
  EXPECT_EQ(s[IdleCause::kHostWait].ns, 30'000);
  EXPECT_EQ(s[IdleCause::kOther].ns, 70'000);
  EXPECT_EQ(s[IdleCause::kUnlinked].ns, 10'000);
  EXPECT_EQ(s.leading_idle_ns, 10'000);
  EXPECT_EQ(s.trailing_idle_ns, 20'000);
}

TEST(IdleTime, OverlappingActivitiesNeverMakeANegativeGap) {
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("long", 10, 50, 1)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("inside", 20, 5, 2)
                          .runtime("cudaLaunchKernel", 3, 1, 3)
                          .kernel("after", 65, 5, 3)
                          .load();
  const IdleTimeResult r = compute_idle_time(trace, find_steps(trace, {}), {});
  EXPECT_EQ(r.streams[0].idle_between_ns(), 5'000);  // 60-65 against the running max end
}

TEST(IdleTime, EachDeviceAndStreamSeparatelyWithTheWindowEdges) {
  // Step 0-100 (host). Device 0 stream 7: 10-20 and 50-60, both launched early (gap: other).
  // Device 0 stream 8: 30-40. Device 1 stream 7: 70-80.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("k", 10, 10, 1, 7, 0)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("k", 50, 10, 2, 7, 0)
                          .runtime("cudaLaunchKernel", 3, 1, 3)
                          .kernel("k", 30, 10, 3, 8, 0)
                          .runtime("cudaLaunchKernel", 4, 1, 4)
                          .kernel("k", 70, 10, 4, 7, 1)
                          .load();
  const StepsResult steps = find_steps(trace, {});
  ASSERT_TRUE(steps.window.has_value());
  const Interval w = *steps.window;
  const IdleTimeResult r = compute_idle_time(trace, steps, {});
  ASSERT_EQ(r.streams.size(), 3U);
  const StreamIdle& s07 = r.streams[0];
  EXPECT_EQ(s07.device, 0);
  EXPECT_EQ(s07.stream, 7);
  EXPECT_EQ(s07.activities, 2);
  EXPECT_EQ(s07.leading_idle_ns, 10'000 - w.start);
  EXPECT_EQ(s07[IdleCause::kOther].ns, 30'000);  // 20-50
  EXPECT_EQ(s07[IdleCause::kOther].gaps, 1);
  EXPECT_DOUBLE_EQ(s07.share(IdleCause::kOther), 1.0);
  EXPECT_DOUBLE_EQ(s07.share(IdleCause::kHostWait), 0.0);
  EXPECT_EQ(s07.trailing_idle_ns, w.end - 60'000);
  EXPECT_EQ(r.streams[1].stream, 8);
  EXPECT_EQ(r.streams[1].leading_idle_ns, 30'000 - w.start);
  EXPECT_EQ(r.streams[1].idle_between_ns(), 0);
  EXPECT_DOUBLE_EQ(r.streams[1].share(IdleCause::kOther), 0.0);  // no gap: no division by 0
  EXPECT_EQ(r.streams[2].device, 1);
  EXPECT_EQ(r.streams[2].stream, 7);
  EXPECT_EQ(r.streams[2].leading_idle_ns, 70'000 - w.start);
  EXPECT_EQ(r.streams[2].trailing_idle_ns, w.end - 80'000);
}

TEST(IdleTime, AnActivityStraddlingTheWindowEndIsClipped) {
  // The last kernel is launched after the step, yet starts before its end: it counts up to W's
  // end only, so the trailing idle is 0 and nothing is negative.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("k", 10, 10, 1)
                          .runtime("cudaLaunchKernel", 150, 1, 2)
                          .kernel("late", 90, 100, 2)
                          .load();
  const StepsResult steps = find_steps(trace, {});
  const IdleTimeResult r = compute_idle_time(trace, steps, {});
  ASSERT_EQ(r.streams.size(), 1U);
  ASSERT_LT(steps.window->end, 190'000);
  EXPECT_EQ(r.streams[0].activities, 2);
  EXPECT_EQ(r.streams[0].trailing_idle_ns, 0);
  EXPECT_EQ(r.streams[0][IdleCause::kHostWait].ns, 70'000);  // launched at 150 > 20
}

TEST(IdleTime, NotApplicableWithoutGpuActivity) {
  const Trace trace = TraceFixture().step(1, 0, 100).op("aten::add", 10, 5).load();
  const IdleTimeResult r = compute_idle_time(trace, find_steps(trace, {}), {});
  EXPECT_FALSE(r.applicable);
  EXPECT_EQ(r.not_applicable_reason, "no GPU activity");
}

}  // namespace
}  // namespace stepscope
