// Rank-local collective bandwidth against conformance.md §9 (`nccl_parser_config`): bytes exact,
// bandwidth ±0.01 %.
#include <gtest/gtest.h>

#include "stepscope/analysis/collective_bandwidth.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

const CollectiveBandwidth* find(const CollectiveBandwidthResult& r, Collective c) {
  for (const CollectiveBandwidth& row : r.collectives) {
    if (row.collective == c) return &row;
  }
  return nullptr;
}

void expect_relative(double actual, double expected, const char* what) {
  EXPECT_NEAR(actual, expected, expected * 1e-4) << what;
}

TEST(CollectiveBandwidthConformance, NcclParserConfigSection9) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/nccl_parser_config");
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks[0];
  const CollectiveBandwidthResult r =
      compute_collective_bandwidth(trace, find_steps(trace, {}), {});
  ASSERT_TRUE(r.applicable);
  // The 21 NCCL kernels of the whole trace all lie in the window; all carry their own args.
  EXPECT_EQ(r.communication_kernels, 21);
  EXPECT_EQ(r.skipped.outside_window, 0);
  EXPECT_EQ(r.args_from_launching_op, 0);
  ASSERT_EQ(r.collectives.size(), 2U);

  const CollectiveBandwidth* all_reduce = find(r, Collective::kAllReduce);
  ASSERT_NE(all_reduce, nullptr);
  EXPECT_EQ(all_reduce->group_size, 2);
  EXPECT_EQ(all_reduce->totals.calls, 15);
  EXPECT_EQ(all_reduce->totals.bytes, 306'684'384);
  EXPECT_EQ(all_reduce->totals.time_ns, 46'762'159);
  expect_relative(all_reduce->totals.algbw_gb_per_s, 6.558, "all-reduce algbw");
  // n = 2: every factor present is 1, so busbw = algbw.
  EXPECT_DOUBLE_EQ(all_reduce->totals.busbw_gb_per_s, all_reduce->totals.algbw_gb_per_s);
  EXPECT_EQ(all_reduce->fastest.bytes, 31'502'336);
  EXPECT_EQ(all_reduce->fastest.time_ns, 2'424'415);
  expect_relative(all_reduce->fastest.algbw_gb_per_s, 12.994, "fastest all-reduce");

  const CollectiveBandwidth* broadcast = find(r, Collective::kBroadcast);
  ASSERT_NE(broadcast, nullptr);
  EXPECT_EQ(broadcast->totals.calls, 6);
  EXPECT_EQ(broadcast->totals.bytes, 638'712);
  EXPECT_EQ(broadcast->totals.time_ns, 114'334);
  expect_relative(broadcast->totals.algbw_gb_per_s, 5.586, "broadcast algbw");
  EXPECT_DOUBLE_EQ(broadcast->totals.busbw_gb_per_s, broadcast->totals.algbw_gb_per_s);

  // The size buckets partition the collective's calls and bytes.
  for (const CollectiveBandwidth* c : {all_reduce, broadcast}) {
    std::int64_t calls = 0;
    std::int64_t bytes = 0;
    for (const SizeBucket& b : c->buckets) {
      calls += b.totals.calls;
      bytes += b.totals.bytes;
    }
    EXPECT_EQ(calls, c->totals.calls);
    EXPECT_EQ(bytes, c->totals.bytes);
  }
}

TEST(CollectiveBandwidthConformance, TracesWithoutCommunicationAreNotApplicable) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const char* folder : {"hta/ns_resolution_trace", "hta/cpu_only"}) {
    const TraceSet set = testing::load_shared(folder);
    const Trace& trace = set.ranks[0];
    const CollectiveBandwidthResult r =
        compute_collective_bandwidth(trace, find_steps(trace, {}), {});
    EXPECT_FALSE(r.applicable) << folder;
    EXPECT_TRUE(r.collectives.empty()) << folder;
  }
}

}  // namespace
}  // namespace stepscope
