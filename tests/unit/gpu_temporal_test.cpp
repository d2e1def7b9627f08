#include <gtest/gtest.h>

#include "stepscope/analysis/gpu_temporal.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

GpuTemporalResult temporal_of(const Trace& trace) {
  return compute_gpu_temporal(trace, find_steps(trace, {}), {});
}

TEST(GpuTemporal, ClassesOverlapAndIdleWithinTheStepWindow) {
  // One step 0-100 µs. compute 10-40, communication 30-60, memory 55-70.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 2, 1)
                          .kernel("gemm", 10, 30, 1)
                          .runtime("cudaLaunchKernel", 3, 2, 2)
                          .kernel("ncclDevKernel_AllReduce", 30, 30, 2, 8)
                          .runtime("cudaMemcpyAsync", 4, 2, 3)
                          .memcpy("Memcpy DtoD (Device -> Device)", 55, 15, 3)
                          .load();
  const GpuTemporalResult r = temporal_of(trace);
  ASSERT_TRUE(r.applicable);
  ASSERT_EQ(r.devices.size(), 1U);
  const DeviceTemporal& d = r.devices[0];
  EXPECT_EQ(d.window_ns, 100'000);
  EXPECT_EQ(d.busy_ns, 60'000);
  EXPECT_EQ(d.idle_ns, 40'000);
  EXPECT_EQ(d.compute_ns, 30'000);
  EXPECT_EQ(d.communication_only_ns, 20'000);  // 40-60
  EXPECT_EQ(d.memory_only_ns, 10'000);         // 60-70
  EXPECT_EQ(d.overlap_ns, 10'000);             // 30-40
  ASSERT_TRUE(d.overlap_share.has_value());
  EXPECT_DOUBLE_EQ(*d.overlap_share, 1.0 / 3.0);
  ASSERT_EQ(r.steps.size(), 1U);
  EXPECT_EQ(r.steps[0].exposed_communication_ns, 20'000);
}

TEST(GpuTemporal, TouchingIntervalsMergeAndStraddlersAreClippedAndCounted) {
  // Steps 0-100 and 100-200 (host spans); a kernel 190-250 launched in step 2 makes the rebased
  // step end at 250. A kernel launched before the first step at -50 lies outside.
  const Trace trace = TraceFixture()
                          .runtime("cudaLaunchKernel", -60, 2, 9)
                          .kernel("early", -50, 20, 9)
                          .step(1, 0, 100)
                          .step(2, 100, 100)
                          .runtime("cudaLaunchKernel", 1, 2, 1)
                          .kernel("a", 10, 20, 1)
                          .runtime("cudaLaunchKernel", 2, 2, 2)
                          .kernel("b", 30, 20, 2)
                          .runtime("cudaLaunchKernel", 110, 2, 4)
                          .kernel("d", 120, 10, 4)
                          .runtime("cudaLaunchKernel", 150, 2, 3)
                          .kernel("c", 190, 60, 3)
                          .load();
  const GpuTemporalResult r = temporal_of(trace);
  const DeviceTemporal& d = r.devices[0];
  EXPECT_EQ(d.window_ns, 250'000);
  EXPECT_EQ(d.busy_ns, 110'000);  // 10-50 merged, 120-130, 190-250
  EXPECT_FALSE(d.overlap_share.has_value());
  EXPECT_EQ(d.outside_window_activities, 1);
  EXPECT_EQ(d.outside_window_ns, 20'000);
}

TEST(GpuTemporal, EachDeviceSeparately) {
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 2, 1)
                          .kernel("a", 10, 20, 1, 7, 0)
                          .runtime("cudaLaunchKernel", 2, 2, 2)
                          .kernel("b", 10, 50, 2, 7, 1)
                          .load();
  const GpuTemporalResult r = temporal_of(trace);
  ASSERT_EQ(r.devices.size(), 2U);
  EXPECT_EQ(r.devices[0].busy_ns, 20'000);
  EXPECT_EQ(r.devices[1].busy_ns, 50'000);
}

TEST(GpuTemporal, TimelineSpansTheActivityAndItsIdentityHolds) {
  // Step 0-100; compute 20-30, communication 25-45, memset 60-70 (memory, not compute).
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("gemm", 20, 10, 1)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclDevKernel_AllGather", 25, 20, 2, 9)
                          .runtime("cudaMemsetAsync", 3, 1, 3)
                          .memset(60, 10, 3)
                          .load();
  const DeviceTemporal d = temporal_of(trace).devices[0];
  EXPECT_EQ(d.timeline_span_ns, 50'000);  // 20-70
  EXPECT_EQ(d.busy_ns, 35'000);
  EXPECT_EQ(d.timeline_idle_ns, 15'000);
  EXPECT_EQ(d.compute_ns, 10'000);
  EXPECT_EQ(d.communication_only_ns, 15'000);
  EXPECT_EQ(d.memory_only_ns, 10'000);
  EXPECT_EQ(d.compute_ns + d.communication_only_ns + d.memory_only_ns + d.timeline_idle_ns,
            d.timeline_span_ns);
  EXPECT_EQ(d.idle_ns, 65'000);  // against the whole window
}

TEST(GpuTemporal, TouchingClassesDoNotOverlapAndEmptyActivitiesAddNothing) {
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("gemm", 10, 10, 1)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclDevKernel_AllReduce", 20, 10, 2, 9)
                          .runtime("cudaLaunchKernel", 3, 1, 3)
                          .kernel("empty", 50, 0, 3)
                          .load();
  const DeviceTemporal d = temporal_of(trace).devices[0];
  EXPECT_EQ(d.busy_ns, 20'000);
  EXPECT_EQ(d.overlap_ns, 0);
  ASSERT_TRUE(d.overlap_share.has_value());
  EXPECT_DOUBLE_EQ(*d.overlap_share, 0.0);
  EXPECT_EQ(d.communication_only_ns, 10'000);
}

TEST(GpuTemporal, OverlapPerStepForTheRankAndForEachDevice) {
  // Steps 0-100 and 100-200. Device 0: step 1 has compute 10-50 under communication 30-60;
  // step 2 only compute. Device 1: communication 120-140 with nothing beside it.
  const Trace trace = TraceFixture()
                          .step(1, 0, 100)
                          .step(2, 100, 100)
                          .runtime("cudaLaunchKernel", 1, 1, 1)
                          .kernel("gemm", 10, 40, 1, 7, 0)
                          .runtime("cudaLaunchKernel", 2, 1, 2)
                          .kernel("ncclDevKernel_AllReduce", 30, 30, 2, 9, 0)
                          .runtime("cudaLaunchKernel", 101, 1, 3)
                          .kernel("gemm", 110, 50, 3, 7, 0)
                          .runtime("cudaLaunchKernel", 102, 1, 4)
                          .kernel("ncclDevKernel_AllReduce", 120, 20, 4, 9, 1)
                          .load();
  const GpuTemporalResult r = temporal_of(trace);
  ASSERT_EQ(r.devices.size(), 2U);
  const DeviceTemporal& d0 = r.devices[0];
  ASSERT_EQ(d0.steps.size(), 2U);
  EXPECT_EQ(d0.steps[0].communication_ns, 30'000);
  EXPECT_EQ(d0.steps[0].exposed_communication_ns, 10'000);
  EXPECT_DOUBLE_EQ(*d0.steps[0].overlap_share, 2.0 / 3.0);
  EXPECT_FALSE(d0.steps[1].overlap_share.has_value());  // no communication in step 2
  const DeviceTemporal& d1 = r.devices[1];
  EXPECT_EQ(d1.steps[1].exposed_communication_ns, 20'000);
  ASSERT_TRUE(d1.overlap_share.has_value());
  EXPECT_DOUBLE_EQ(*d1.overlap_share, 0.0);
  // The rank: device 0's compute hides device 1's collective in step 2.
  ASSERT_EQ(r.steps.size(), 2U);
  EXPECT_EQ(r.steps[1].communication_ns, 20'000);
  EXPECT_EQ(r.steps[1].exposed_communication_ns, 0);
}

TEST(GpuTemporal, CpuOnlyTraceIsNotApplicableNotAnError) {
  const Trace trace = TraceFixture().step(1, 0, 100).op("aten::add", 10, 5).load();
  const GpuTemporalResult r = temporal_of(trace);
  EXPECT_FALSE(r.applicable);
  EXPECT_EQ(r.not_applicable_reason, "no GPU activity");
  EXPECT_TRUE(r.devices.empty());
}

}  // namespace
}  // namespace stepscope
