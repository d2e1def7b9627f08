#include <gtest/gtest.h>

#include "stepscope/analysis/gpu_temporal.h"
#include "stepscope/analysis/kernel_breakdown.h"
#include "support/shared_traces.h"
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

TEST(KernelBreakdown, LabelsAgreeWithTheTemporalBreakdownOnRealTraces) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const char* folder : {"hta/trace_diff/control", "hta/nccl_parser_config",
                             "hta/negative_queue_length_values_check"}) {
    const TraceSet set = testing::load_shared(folder);
    const Trace& trace = set.ranks.front();
    const StepsResult steps = find_steps(trace, {});
    const KernelBreakdownResult kernels = compute_kernel_breakdown(trace, steps, {});
    const GpuTemporalResult temporal = compute_gpu_temporal(trace, steps, {});
    std::int64_t with_computation = 0;
    std::int64_t all = 0;
    for (const OverlapLabel& label : kernels.devices[0].labels) {
      all += label.ns;
      if (label.computation) with_computation += label.ns;
    }
    // Instances starting in W, clipped at its end: the same union as the temporal breakdown,
    // but for activities that start before W (counted there, not here).
    EXPECT_LE(all, temporal.devices[0].busy_ns) << folder;
    EXPECT_GE(all, temporal.devices[0].busy_ns - temporal.devices[0].outside_window_ns) << folder;
    EXPECT_LE(with_computation, temporal.devices[0].compute_ns) << folder;
  }
}

}  // namespace
}  // namespace stepscope
