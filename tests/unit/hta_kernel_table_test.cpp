// compat-hta kernel classes, HTA's folded kernel table and the class labels
// (docs/metrics/04-hta-gpu-kernel-breakdown.md §4).
#include <gtest/gtest.h>

#include <algorithm>

#include "stepscope/analysis/hta/hta_report.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

hta::HtaReport report_of(Trace trace) {
  TraceSet set;
  set.ranks.push_back(std::move(trace));
  return hta::compute_hta_report(set, {});
}

TEST(HtaKernelType, NameRulesInOrder) {
  using hta::KernelType;
  EXPECT_EQ(hta::kernel_type("ncclKernel_AllReduce"), KernelType::kCommunication);
  EXPECT_EQ(hta::kernel_type("void foo<ncclKernel>"), KernelType::kCommunication);
  // The communication test comes first: a ROCm copy named hip… is communication.
  EXPECT_EQ(hta::kernel_type("hipMemcpyDtoD"), KernelType::kCommunication);
  EXPECT_EQ(hta::kernel_type("Memcpy HtoD (Pageable -> Device)"), KernelType::kMemory);
  EXPECT_EQ(hta::kernel_type("Memset (Device)"), KernelType::kMemory);
  EXPECT_EQ(hta::kernel_type("volta_sgemm_128x64_nn"), KernelType::kComputation);
  EXPECT_EQ(hta::kernel_type("Context Sync"), KernelType::kOther);
  EXPECT_EQ(hta::kernel_type("Stream Wait Event"), KernelType::kOther);
  EXPECT_EQ(hta::kernel_type("my_dma_kernel"), KernelType::kOther);
  EXPECT_EQ(hta::kernel_type("cudaLaunchKernel"), KernelType::kOther);
}

// Twelve compute kernels with sums 120, 110, …, 10 µs (one instance each, kernel k0 twice).
Trace twelve_names() {
  TraceFixture f;
  double ts = 0;
  for (int k = 0; k < 12; ++k) {
    const double dur = 10.0 * (12 - k);
    if (k == 0) {
      f.kernel("k0", ts, dur / 2, 100);
      ts += dur / 2 + 1;
      f.kernel("k0", ts, dur / 2, 101);
      ts += dur / 2 + 1;
      continue;
    }
    std::string name = "k";
    name += std::to_string(k);
    f.kernel(name, ts, dur, k);
    ts += dur + 1;
  }
  return f.load();
}

TEST(HtaKernelTable, FoldingRuleUsesTheQuantileOfRunningTotals) {
  // Running totals: 120, 230, 330, 420, 500, 570, 630, 680, 720, 750, 770, 780. Their 0.8
  // quantile (position 8.8) is 720 + 0.8 × 30 = 744, so names after k8 (running 750, 770, 780)
  // fold; 80 % of the class time (624) would have folded from k6 on.
  const hta::HtaReport r = report_of(twelve_names());
  const hta::RankFigures& rank = r.ranks.at(0);
  ASSERT_EQ(rank.kernels.size(), 12U);
  for (const hta::KernelStats& k : rank.kernels) {
    const int index = std::stoi(k.name.substr(1));
    EXPECT_EQ(k.folded_into_others, index >= 9) << k.name;
    EXPECT_TRUE(k.hta_stats_are_per_name_totals) << k.name;
  }
  ASSERT_EQ(rank.others.size(), 1U);
  EXPECT_EQ(rank.others[0].sum_ns, 60'000);  // 30 + 20 + 10
  EXPECT_EQ(rank.others[0].count, 3);        // per-name totals, not instances
  EXPECT_EQ(rank.others[0].max_ns, 30'000);
  EXPECT_EQ(rank.others[0].min_ns, 10'000);
  EXPECT_NEAR(rank.others[0].std_ns, 10'000, 1e-6);
  EXPECT_NE(std::find(r.quirks.begin(), r.quirks.end(), "kernel_stats_are_per_name_totals"),
            r.quirks.end());
}

TEST(HtaKernelTable, KeptNamesShowTheirTotalAsMaxMinMean) {
  const hta::RankFigures rank = report_of(twelve_names()).ranks.at(0);
  // Per instance, k0 ran twice for 60 µs each; HTA's table says 120 for max, min and mean.
  const auto& k0 = *std::find_if(rank.kernels.begin(), rank.kernels.end(),
                                 [](const hta::KernelStats& k) { return k.name == "k0"; });
  EXPECT_EQ(k0.count, 2);
  EXPECT_EQ(k0.max_ns, 60'000);
  EXPECT_DOUBLE_EQ(k0.mean_ns, 60'000);
  auto row = std::find_if(rank.hta_kernel_table.begin(), rank.hta_kernel_table.end(),
                          [](const hta::HtaKernelRow& k) { return k.name == "k0"; });
  ASSERT_NE(row, rank.hta_kernel_table.end());
  EXPECT_EQ(row->sum_ns, 120'000);
  EXPECT_DOUBLE_EQ(row->max_ns, 120'000);
  EXPECT_DOUBLE_EQ(row->min_ns, 120'000);
  EXPECT_DOUBLE_EQ(row->mean_ns, 120'000);
  EXPECT_DOUBLE_EQ(row->std_ns, 0);
  // HTA's table: nine kept names and `others`, sorted by name ("k0" < "k1" < … < "others").
  ASSERT_EQ(rank.hta_kernel_table.size(), 10U);
  EXPECT_EQ(rank.hta_kernel_table.back().name, "others");
  EXPECT_TRUE(std::is_sorted(
      rank.hta_kernel_table.begin(), rank.hta_kernel_table.end(),
      [](const hta::HtaKernelRow& a, const hta::HtaKernelRow& b) { return a.name < b.name; }));
}

TEST(HtaKernelTable, TenNamesOrFewerKeepPerInstanceStatistics) {
  const hta::RankFigures rank =
      report_of(
          TraceFixture().kernel("a", 0, 10, 1).kernel("a", 20, 30, 2).kernel("b", 60, 5, 3).load())
          .ranks.at(0);
  ASSERT_EQ(rank.hta_kernel_table.size(), 2U);
  EXPECT_TRUE(rank.others.empty());
  const hta::HtaKernelRow& a = rank.hta_kernel_table[0];
  EXPECT_EQ(a.name, "a");
  EXPECT_EQ(a.sum_ns, 40'000);
  EXPECT_DOUBLE_EQ(a.max_ns, 30'000);
  EXPECT_DOUBLE_EQ(a.min_ns, 10'000);
  EXPECT_DOUBLE_EQ(a.mean_ns, 20'000);
  EXPECT_NEAR(a.std_ns, 14'142.1356, 1e-3);
  EXPECT_FALSE(rank.kernels[0].hta_stats_are_per_name_totals);
}

TEST(HtaKernelClasses, LabelsPartitionTheUnionAndSumOverRanks) {
  // Compute 0-100, communication 50-150, memcpy 140-160 on each of two ranks.
  auto make = [](std::int64_t rank) {
    Trace t = TraceFixture()
                  .kernel("gemm", 0, 100, 1)
                  .kernel("ncclKernel_AllReduce", 50, 100, 2, 8)
                  .memcpy("Memcpy HtoD (Pinned -> Device)", 140, 20, 3, 9)
                  .load();
    t.rank = rank;
    return t;
  };
  TraceSet set;
  set.ranks.push_back(make(0));
  set.ranks.push_back(make(1));
  const hta::HtaReport r = hta::compute_hta_report(set, {});
  std::map<std::string, std::int64_t> sums;
  for (const hta::ClassLabel& c : r.kernel_classes) sums[c.label] = c.sum_ns;
  EXPECT_EQ(sums["COMPUTATION"], 2 * 50'000);
  EXPECT_EQ(sums["COMPUTATION overlapping COMMUNICATION"], 2 * 50'000);
  EXPECT_EQ(sums["COMMUNICATION"], 2 * 40'000);
  EXPECT_EQ(sums["COMMUNICATION overlapping MEMORY"], 2 * 10'000);
  EXPECT_EQ(sums["MEMORY"], 2 * 10'000);
  EXPECT_EQ(r.kernel_classes.front().sum_ns, 100'000);
  EXPECT_NEAR(r.kernel_classes.back().percent, 100.0 * 20 / 320, 0.05);
  // comm/comp overlap: 50 of the 100 µs of communication.
  ASSERT_TRUE(r.ranks[0].comm_comp_overlap_percent.has_value());
  EXPECT_DOUBLE_EQ(*r.ranks[0].comm_comp_overlap_percent, 50.0);
}

TEST(HtaKernelClasses, TouchingClassesLeaveAZeroRow) {
  // Compute ends at 100 when a memcpy starts: HTA's start-first order gives a zero-length
  // `COMPUTATION overlapping MEMORY` row (conformance.md §4.6).
  const hta::HtaReport r = report_of(TraceFixture()
                                         .kernel("gemm", 0, 100, 1)
                                         .memcpy("Memcpy DtoH (Device -> Pinned)", 100, 10, 2)
                                         .load());
  auto zero = std::find_if(r.kernel_classes.begin(), r.kernel_classes.end(), [](const auto& c) {
    return c.label == "COMPUTATION overlapping MEMORY";
  });
  ASSERT_NE(zero, r.kernel_classes.end());
  EXPECT_EQ(zero->sum_ns, 0);
  EXPECT_FALSE(r.ranks.at(0).comm_comp_overlap_percent.has_value());
}

}  // namespace
}  // namespace stepscope
