// compat-hta row scope (docs/metrics/00-conventions-for-every-figure.md §0.6): rounding emulation
// and the step filter.
#include <gtest/gtest.h>

#include <algorithm>

#include "stepscope/analysis/hta/hta_report.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

TraceSet single(Trace trace) {
  TraceSet set;
  set.ranks.push_back(std::move(trace));
  return set;
}

hta::HtaReport report(const TraceSet& set, bool rounding = true) {
  AnalysisOptions options;
  options.hta_rounding = rounding;
  return hta::compute_hta_report(set, options);
}

const hta::KernelStats& kernel(const hta::RankFigures& rank, const std::string& name) {
  auto found = std::find_if(rank.kernels.begin(), rank.kernels.end(),
                            [&](const hta::KernelStats& k) { return k.name == name; });
  EXPECT_NE(found, rank.kernels.end()) << name;
  return *found;
}

TEST(HtaRows, FractionalTimestampsAreRoundedInward) {
  // ts 12.5, dur 1.2: start = ceil(12.5) = 13, end = floor(13.7) = 13, so dur 0.
  // ts 20.25, dur 3.5: start 21, end floor(23.75) = 23, dur 2.
  const hta::HtaReport r =
      report(single(TraceFixture().kernel("a", 12.5, 1.2, 1).kernel("b", 20.25, 3.5, 2).load()));
  ASSERT_TRUE(r.rounding);
  const hta::RankFigures& rank = r.ranks.at(0);
  EXPECT_EQ(kernel(rank, "a").sum_ns, 0);
  EXPECT_EQ(kernel(rank, "b").sum_ns, 2'000);
  EXPECT_EQ(rank.temporal.kernel_span_ns, 10'000);  // 13 to 23
  EXPECT_NE(std::find(r.quirks.begin(), r.quirks.end(), "timestamps_rounded_to_whole_microseconds"),
            r.quirks.end());
}

TEST(HtaRows, SubMicrosecondEventGetsMinusOneDuration) {
  // ts 12.5, dur 0.4: start 13, end floor(12.9) = 12. Alone on the timeline, HTA's merge keeps
  // the inverted interval, so the busy time is −1 µs and the idle exceeds the span.
  const hta::HtaReport r =
      report(single(TraceFixture().kernel("tiny", 12.5, 0.4, 1).kernel("k", 30, 10, 2).load()));
  const hta::RankFigures& rank = r.ranks.at(0);
  EXPECT_EQ(kernel(rank, "tiny").sum_ns, -1'000);
  EXPECT_EQ(rank.temporal.kernel_span_ns, 27'000);              // 13 to 40
  EXPECT_EQ(rank.temporal.idle_ns, 27'000 - (10'000 - 1'000));  // busy 10 − 1
}

TEST(HtaRows, RoundingEmulatesDoublesAtEpochScale) {
  // At 1.7e15 µs a double resolves 0.25 µs: ts .375 + dur 2.5 sums to .875 exactly, but HTA
  // adds two doubles and floors; pandas gives start +1, end +3 (dur 2) where exact decimal
  // arithmetic gives end +2 (dur 1). And .875 + 0.9 gives dur 1 where the exact one is 0.
  const hta::HtaReport r = report(single(TraceFixture()
                                             .kernel("a", 1700000000000000.375, 2.5, 1)
                                             .kernel("b", 1700000000000100.875, 0.9, 2)
                                             .load()));
  const hta::RankFigures& rank = r.ranks.at(0);
  EXPECT_EQ(kernel(rank, "a").sum_ns, 2'000);
  EXPECT_EQ(kernel(rank, "b").sum_ns, 1'000);
}

TEST(HtaRows, IntegerTimestampsAreNotRoundedEvenWithFractionalDurations) {
  const std::string kernel_event =
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":100,"dur":2.5,)"
      R"("args":{"device":0,"stream":7,"correlation":1}})";
  const hta::HtaReport r = report(single(TraceFixture().raw_event(kernel_event).load()));
  EXPECT_FALSE(r.rounding);
  EXPECT_EQ(kernel(r.ranks.at(0), "k").sum_ns, 2'500);
}

TEST(HtaRows, RoundingOffKeepsNanoseconds) {
  const hta::HtaReport r = report(single(TraceFixture().kernel("a", 12.5, 1.2, 1).load()), false);
  EXPECT_FALSE(r.rounding);
  EXPECT_EQ(kernel(r.ranks.at(0), "a").sum_ns, 1'200);
}

// Steps 1 (0-100) and 2 (100-200). The last step, and everything launched in it, is dropped;
// a kernel launched before the first step stays.
TraceFixture two_steps() {
  TraceFixture f;
  f.runtime("cudaLaunchKernel", -10, 2, 1).kernel("before", 1, 5, 1);
  f.step(1, 0, 100).runtime("cudaLaunchKernel", 10, 2, 2).kernel("in_step_1", 20, 10, 2);
  f.step(2, 100, 100).runtime("cudaLaunchKernel", 110, 2, 3).kernel("in_step_2", 120, 10, 3);
  return f;
}

TEST(HtaStepFilter, LastStepIsDropped) {
  const hta::HtaReport r = report(single(two_steps().load()));
  EXPECT_TRUE(r.step_filter);
  EXPECT_EQ(r.profiler_steps, std::vector<std::int64_t>{1});
  std::vector<std::string> names;
  for (const hta::KernelStats& k : r.ranks.at(0).kernels) names.push_back(k.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"before", "in_step_1"}));
  EXPECT_EQ(r.ranks[0].launches.pairs, 2);
  EXPECT_NE(std::find(r.quirks.begin(), r.quirks.end(), "last_step_dropped"), r.quirks.end());
}

TEST(HtaStepFilter, OneStepNameMeansNoFilter) {
  const hta::HtaReport r = report(single(TraceFixture()
                                             .step(1, 0, 100)
                                             .runtime("cudaLaunchKernel", 10, 2, 2)
                                             .kernel("k", 20, 10, 2)
                                             .load()));
  EXPECT_FALSE(r.step_filter);
  EXPECT_EQ(r.profiler_steps, std::vector<std::int64_t>{1});
  EXPECT_EQ(r.ranks.at(0).kernels.size(), 1U);
}

TEST(HtaStepFilter, GpuRowKeptOncePerCpuRowWithItsCorrelation) {
  // Two host rows carry correlation 5 (the launch and a second runtime call): the kernel is
  // kept twice, so its count and sum double, as HTA's inner merge does.
  TraceFixture f = two_steps();
  f.runtime("cudaLaunchKernel", 30, 2, 5).runtime("cudaStreamWaitEvent", 31, 1, 5);
  f.kernel("twice", 40, 10, 5);
  const hta::HtaReport r = report(single(f.load()));
  const hta::KernelStats& k = kernel(r.ranks.at(0), "twice");
  EXPECT_EQ(k.count, 2);
  EXPECT_EQ(k.sum_ns, 20'000);
}

TEST(HtaStepFilter, StepNamesSpanRanksAndARankWithoutStepsKeepsNothing) {
  // Rank 0 has steps 1 and 2; rank 1 has only kernels. Two names over all ranks turn the filter
  // on, and rank 1, with no step of its own, keeps nothing.
  Trace rank0 = two_steps().load();
  Trace rank1 = TraceFixture()
                    .op("aten::mm", 0, 50)
                    .runtime("cudaLaunchKernel", 10, 2, 9)
                    .kernel("k", 20, 10, 9)
                    .load();
  rank1.rank = 1;
  TraceSet set;
  set.ranks.push_back(std::move(rank0));
  set.ranks.push_back(std::move(rank1));
  const hta::HtaReport r = report(set);
  EXPECT_TRUE(r.step_filter);
  ASSERT_EQ(r.ranks.size(), 2U);
  EXPECT_FALSE(r.ranks[1].has_gpu_rows);
  EXPECT_TRUE(r.ranks[1].kernels.empty());
}

TEST(HtaStepFilter, StepsOnTwoRanksEachDropTheirOwnLast) {
  Trace rank0 = TraceFixture().step(1, 0, 100).step(2, 100, 100).load();
  Trace rank1 = TraceFixture().step(2, 0, 100).step(3, 100, 100).load();
  rank1.rank = 1;
  TraceSet set;
  set.ranks.push_back(std::move(rank0));
  set.ranks.push_back(std::move(rank1));
  EXPECT_EQ(report(set).profiler_steps, (std::vector<std::int64_t>{1, 2}));
}

}  // namespace
}  // namespace stepscope
