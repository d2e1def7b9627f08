// compat-hta temporal breakdown, idle per stream, launch statistics and queue length
// (docs/metrics/03-hta-temporal-breakdown-idle-compute-non.md §3, §5, §7, §8).
#include <gtest/gtest.h>

#include <algorithm>

#include "stepscope/analysis/hta/hta_report.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

hta::RankFigures figures_of(Trace trace) {
  TraceSet set;
  set.ranks.push_back(std::move(trace));
  return hta::compute_hta_report(set, {}).ranks.at(0);
}

TEST(HtaTemporal, SyncMarkersAreBusyNonComputeAndStretchTheSpan) {
  // Compute 0-10 and 20-30, a Context Sync 40-50 on stream 4294967295: span 50, busy 30,
  // compute 20, non-compute 10 (the sync), idle 20.
  const std::string context_sync =
      R"({"ph":"X","cat":"cuda_sync","name":"Context Sync","pid":0,"tid":9,"ts":40.000,)"
      R"("dur":10.000,"args":{"device":0,"stream":4294967295,"correlation":3}})";
  const hta::RankFigures r = figures_of(
      TraceFixture().kernel("a", 0, 10, 1).kernel("b", 20, 10, 2).raw_event(context_sync).load());
  EXPECT_EQ(r.temporal.kernel_span_ns, 50'000);
  EXPECT_EQ(r.temporal.idle_ns, 20'000);
  EXPECT_EQ(r.temporal.compute_ns, 20'000);
  EXPECT_EQ(r.temporal.non_compute_ns, 10'000);
  EXPECT_DOUBLE_EQ(r.temporal.idle_percent, 40.0);
  EXPECT_DOUBLE_EQ(r.temporal.compute_percent, 40.0);
  EXPECT_DOUBLE_EQ(r.temporal.non_compute_percent, 20.0);
}

TEST(HtaTemporal, RankWithoutGpuRowsIsFlagged) {
  const hta::RankFigures r = figures_of(TraceFixture().op("aten::add", 0, 10).load());
  EXPECT_FALSE(r.has_gpu_rows);
  EXPECT_EQ(r.temporal.kernel_span_ns, 0);
}

TEST(HtaIdle, CategoriesFollowThePreviousRowInStartOrder) {
  // Stream 7: k1 10-20 (launched at 1); k2 launched at 5 runs 30-40 (gap 10, kernel wait);
  // k3 launched at 60 runs 70-80 (launch after k2's end: host wait 30); k4 launched at 61 runs
  // 150-160 (gap 70: other); k5 with no launch call runs 170-180 (gap 10: kernel wait, never
  // host wait); k6 runs 175-185, inside k5 (negative gap −5, counted as kernel wait).
  const hta::RankFigures r = figures_of(TraceFixture()
                                            .runtime("cudaLaunchKernel", 1, 1, 1)
                                            .kernel("k1", 10, 10, 1)
                                            .runtime("cudaLaunchKernel", 5, 1, 2)
                                            .kernel("k2", 30, 10, 2)
                                            .runtime("cudaLaunchKernel", 60, 1, 3)
                                            .kernel("k3", 70, 10, 3)
                                            .runtime("cudaLaunchKernel", 61, 1, 4)
                                            .kernel("k4", 150, 10, 4)
                                            .kernel("k5", 170, 10, 99)
                                            .kernel("k6", 175, 10, 98)
                                            .load());
  ASSERT_EQ(r.idle.size(), 1U);
  const hta::IdleStream& s = r.idle[0];
  EXPECT_EQ(s.stream, 7);
  EXPECT_EQ(s.host_wait_ns, 30'000);
  EXPECT_EQ(s.kernel_wait_ns, 10'000 + 10'000 - 5'000);
  EXPECT_EQ(s.other_ns, 70'000);
  EXPECT_EQ(s.kernel_wait_gaps, 3);
  ASSERT_TRUE(s.host_wait_ratio.has_value());
  EXPECT_DOUBLE_EQ(*s.host_wait_ratio, 0.26);  // 30 / 115
}

TEST(HtaIdle, SyncRowsAreLeftOutAndASingleRowHasANullRatio) {
  const hta::RankFigures r =
      figures_of(TraceFixture().kernel("only", 0, 10, 1, 3).sync("Event Sync", 20, 5, 2, 3).load());
  ASSERT_EQ(r.idle.size(), 1U);
  EXPECT_EQ(r.idle[0].other_ns, 0);
  EXPECT_EQ(r.idle[0].host_wait_gaps + r.idle[0].kernel_wait_gaps + r.idle[0].other_gaps, 0);
  EXPECT_FALSE(r.idle[0].other_ratio.has_value());
}

TEST(HtaLaunches, PairsSumsAndCutoffs) {
  // A 60 µs launch whose kernel starts 150 µs after it returns; a 5 µs launch whose 2 µs kernel
  // starts before it returns (delay clipped to 0, a short kernel); a cuLaunchKernel (not on
  // HTA's list) and a cudaMemcpyAsync with its memcpy.
  const hta::RankFigures r = figures_of(TraceFixture()
                                            .runtime("cudaLaunchKernel", 0, 60, 1)
                                            .kernel("slow_launch", 210, 10, 1)
                                            .runtime("cudaLaunchKernel", 300, 5, 2)
                                            .kernel("quick", 303, 2, 2)
                                            .driver("cuLaunchKernel", 400, 5, 3)
                                            .kernel("triton", 410, 10, 3)
                                            .runtime("cudaMemcpyAsync", 500, 4, 4)
                                            .memcpy("Memcpy HtoD (Pinned -> Device)", 510, 8, 4)
                                            .load());
  const hta::LaunchStats& l = r.launches;
  EXPECT_EQ(l.pairs, 3);
  EXPECT_EQ(l.cpu_duration_ns, 69'000);
  EXPECT_EQ(l.gpu_duration_ns, 20'000);
  EXPECT_EQ(l.launch_delay_ns, 150'000 + 0 + 6'000);
  EXPECT_EQ(l.cpu_duration_over_50us, 1);
  EXPECT_EQ(l.launch_delay_over_100us, 1);
  EXPECT_EQ(l.short_kernels, 1);
}

TEST(HtaQueue, DecrementsBeforeIncrementsAtEqualTimes) {
  // Launches at 0 and 10; kernels start at 10 and 20. Points: +1@0, −1@10, +1@10, −1@20.
  // Decrements first: depths 1, 0, 1, 0 (mean 0.5, max 1); increments first would give 1, 2.
  // cuLaunchKernel counts here although the launch statistics ignore it.
  const hta::RankFigures r = figures_of(TraceFixture()
                                            .runtime("cudaLaunchKernel", 0, 2, 1)
                                            .kernel("a", 10, 5, 1)
                                            .driver("cuLaunchKernel", 10, 2, 2)
                                            .kernel("b", 20, 5, 2)
                                            .load());
  ASSERT_EQ(r.queues.size(), 1U);
  const hta::QueueStream& q = r.queues[0];
  EXPECT_EQ(q.stream, 7);
  EXPECT_EQ(q.samples, 4);
  EXPECT_DOUBLE_EQ(q.mean, 0.5);
  EXPECT_EQ(q.max, 1);
  EXPECT_EQ(q.min, 0);
  EXPECT_DOUBLE_EQ(q.p50, 0.5);
  EXPECT_NEAR(q.std, 0.57735, 1e-5);
  EXPECT_EQ(r.launches.pairs, 1);
}

}  // namespace
}  // namespace stepscope
