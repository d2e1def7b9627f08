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

}  // namespace
}  // namespace stepscope
