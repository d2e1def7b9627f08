#include <gtest/gtest.h>

#include "stepscope/analysis/gpu_temporal.h"
#include "stepscope/analysis/kernel_breakdown.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TEST(KernelBreakdown, LabelsPartitionTheActivityAndStatisticsArePerInstance) {
  AnalysisOptions options;
  options.top = 1;
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("gemm", 10, 20, 1)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("gemm", 40, 40, 2)
                          .runtime("cudaLaunchKernel", 3, 1, 3)
                          .kernel("ncclDevKernel_AllGather", 20, 30, 3, 9)
                          .load();
  const KernelBreakdownResult r = compute_kernel_breakdown(trace, find_steps(trace, {}), options);
  ASSERT_TRUE(r.applicable);
  const DeviceKernels& d = r.devices[0];
  // computation 10-30 and 40-80; communication 20-50: comp only 10-20 + 50-80, both 20-30 +
  // 40-50, comm only 30-40.
  ASSERT_EQ(d.labels.size(), 3U);
  EXPECT_EQ(d.labels[0].name(), "computation");
  EXPECT_EQ(d.labels[0].ns, 40'000);
  EXPECT_EQ(d.labels[1].name(), "computation+communication");
  EXPECT_EQ(d.labels[1].ns, 20'000);
  EXPECT_EQ(d.labels[2].ns, 10'000);
  ASSERT_EQ(d.top.size(), 1U);
  EXPECT_EQ(d.top[0].name, "gemm");
  EXPECT_EQ(d.top[0].count, 2);
  EXPECT_EQ(d.top[0].min_ns, 20'000);
  EXPECT_EQ(d.top[0].max_ns, 40'000);
  EXPECT_DOUBLE_EQ(d.top[0].mean_ns, 30'000);
  EXPECT_NEAR(d.top[0].std_ns, 14142.1356, 1e-3);  // sample std of 20 and 40 µs
  EXPECT_EQ(d.others_count, 1);
  EXPECT_EQ(d.others_ns, 30'000);
  EXPECT_EQ(d.top_by_class[1].size(), 1U);
}

}  // namespace
}  // namespace stepscope
