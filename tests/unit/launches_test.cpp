#include <gtest/gtest.h>

#include "stepscope/analysis/launches.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TEST(Launches, ClassesByCallName) {
  EXPECT_EQ(classify_launch("cudaLaunchKernel"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("cuLaunchKernel"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("hipExtModuleLaunchKernel"), LaunchClass::kKernelLaunch);
  EXPECT_EQ(classify_launch("cudaGraphLaunch"), LaunchClass::kGraphLaunch);
  EXPECT_EQ(classify_launch("cudaMemcpyAsync"), LaunchClass::kAsyncMemory);
  EXPECT_EQ(classify_launch("hipMemcpyWithStream"), LaunchClass::kSyncMemory);
  EXPECT_EQ(classify_launch("cudaMemcpy"), LaunchClass::kSyncMemory);
  EXPECT_FALSE(classify_launch("cudaStreamSynchronize").has_value());
}

TEST(Launches, DelaysDurationsAndTheQueue) {
  // Window 0-100 µs. Three kernels launched at 1, 2, 3 (1 µs each) run at 10, 20, 30 for 5 µs.
  TraceFixture fixture;
  fixture.step(1, 0, 100);
  for (int k = 0; k < 3; ++k) {
    fixture.runtime("cudaLaunchKernel", 1 + k, 1, 10 + k);
    fixture.kernel("k", 10 + 10 * k, 5, 10 + k);
  }
  const Trace trace = fixture.load();
  const LaunchResult r = compute_launches(trace, find_steps(trace, {}), {});
  const LaunchClassStats& s = r.classes[0];
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.launch_delay_ns.min, 8'000);   // 10 - (1 + 1)
  EXPECT_DOUBLE_EQ(s.launch_delay_ns.max, 26'000);  // 30 - (3 + 1)
  EXPECT_EQ(s.short_kernel_count, 0);               // gpu 5 µs >= cpu 1 µs
  ASSERT_EQ(r.queues.size(), 1U);
  const StreamQueue& q = r.queues[0];
  EXPECT_EQ(q.max_depth, 3);
  EXPECT_EQ(q.samples, 6);
  // Depth 1 on 1-2, 2 on 2-3, 3 on 3-10, 2 on 10-20, 1 on 20-30, then 0:
  // area 1 + 2 + 21 + 20 + 10 = 54 µs over 100 µs.
  EXPECT_NEAR(q.time_weighted_mean, 0.54, 1e-9);
  EXPECT_EQ(q.time_at_limit_ns, 0);
}

}  // namespace
}  // namespace stepscope
