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

TEST(KernelBreakdown, LabelsClipToTheWindowWhileStatisticsTakeWholeInstances) {
  // Step 0-100 (host). "late" is launched after the step but starts at 90 and runs to 190:
  // the labels take its part inside W (the §3 busy time), its statistics the whole 100 µs.
  // gemm and the memcpy touch at 60 without a zero-length label.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("gemm", 40, 20, 1)
                          .runtime("cudaMemcpyAsync", 2, 1, 2)
                          .memcpy("Memcpy HtoD (Pageable -> Device)", 60, 10, 2)
                          .runtime("cudaLaunchKernel", 150, 1, 3)
                          .kernel("late", 90, 100, 3)
                          .load();
  const StepsResult steps = find_steps(trace, {});
  ASSERT_LT(steps.window->end, 190'000);  // "late" really straddles the window end
  const KernelBreakdownResult r = compute_kernel_breakdown(trace, steps, {});
  const DeviceKernels& d = r.devices[0];
  std::int64_t labelled = 0;
  std::int64_t computation = 0;
  for (const OverlapLabel& label : d.labels) {
    EXPECT_GT(label.ns, 0);
    labelled += label.ns;
    if (label.computation) computation += label.ns;
  }
  const GpuTemporalResult temporal = compute_gpu_temporal(trace, steps, {});
  EXPECT_EQ(temporal.devices[0].outside_window_activities, 1);
  EXPECT_EQ(labelled, temporal.devices[0].busy_ns);
  EXPECT_EQ(computation, temporal.devices[0].compute_ns);
  EXPECT_EQ(labelled, 30'000 + steps.window->end - 90'000);
  ASSERT_EQ(d.top.size(), 3U);
  EXPECT_EQ(d.top[0].name, "late");
  EXPECT_EQ(d.top[0].total_ns, 100'000);
  EXPECT_EQ(d.activity_ns, 130'000);
}

TEST(KernelBreakdown, EachClassKeepsItsOwnTopAndOthers) {
  AnalysisOptions options;
  options.top = 1;
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("a", 10, 30, 1)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("b", 10, 20, 2, 8)
                          .runtime("cudaLaunchKernel", 3, 1, 3)
                          .kernel("c", 40, 10, 3)
                          .runtime("cudaLaunchKernel", 4, 1, 4)
                          .kernel("c", 60, 10, 4)
                          .runtime("cudaLaunchKernel", 5, 1, 5)
                          .kernel("ncclDevKernel_SendRecv", 80, 5, 5, 9)
                          .load();
  const DeviceKernels d =
      compute_kernel_breakdown(trace, find_steps(trace, {}), options).devices[0];
  ASSERT_EQ(d.top.size(), 1U);
  EXPECT_EQ(d.top[0].name, "a");
  EXPECT_DOUBLE_EQ(d.top[0].share, 30.0 / 75.0);
  EXPECT_EQ(d.others_count, 4);  // b, c twice, the collective
  EXPECT_EQ(d.others_ns, 45'000);
  ASSERT_EQ(d.top_by_class[0].size(), 1U);
  EXPECT_EQ(d.others_count_by_class[0], 3);  // b and c (twice) after "a"
  EXPECT_EQ(d.others_ns_by_class[0], 40'000);
  ASSERT_EQ(d.top_by_class[1].size(), 1U);
  EXPECT_EQ(d.top_by_class[1][0].activity_class, ActivityClass::kCommunication);
  EXPECT_EQ(d.others_count_by_class[1], 0);
  EXPECT_TRUE(d.top_by_class[2].empty());
}

}  // namespace
}  // namespace stepscope
