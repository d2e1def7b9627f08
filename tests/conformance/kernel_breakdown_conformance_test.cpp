// The native kernel-class partition (docs/metrics/04-hta-gpu-kernel-breakdown.md §4.2) against
// conformance.md §6: the labels partition the busy time, and the §3 and §6.3 figures are sums of
// labels (±0.001 µs).
#include <gtest/gtest.h>

#include "conformance/native_expectations.h"
#include "stepscope/analysis/kernel_breakdown.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

using testing::us;

struct LabelSums {
  std::int64_t all = 0;
  std::int64_t with_computation = 0;
  std::int64_t with_communication = 0;
  std::int64_t computation_and_communication = 0;
  std::int64_t communication_alone = 0;
  std::int64_t memory_alone = 0;
  double shares = 0;
};

LabelSums sum_labels(const std::vector<OverlapLabel>& labels) {
  LabelSums s;
  for (const OverlapLabel& l : labels) {
    EXPECT_GT(l.ns, 0) << l.name();  // no zero rows
    s.all += l.ns;
    s.shares += l.share;
    if (l.computation) s.with_computation += l.ns;
    if (l.communication) s.with_communication += l.ns;
    if (l.computation && l.communication) s.computation_and_communication += l.ns;
    if (l.communication && !l.computation && !l.memory) s.communication_alone += l.ns;
    if (l.memory && !l.computation && !l.communication) s.memory_alone += l.ns;
  }
  return s;
}

TEST(KernelBreakdownConformance, LabelsReproduceTheNativeTableOfSection6) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const testing::NativeExpectation& row : testing::native_expectations()) {
    const TraceSet set = testing::load_shared(row.folder);
    const Trace* trace = testing::rank_of(set, row.rank);
    ASSERT_NE(trace, nullptr) << row.folder;
    const std::string what = row.folder + " rank " + std::to_string(row.rank);
    const KernelBreakdownResult r = compute_kernel_breakdown(*trace, find_steps(*trace, {}), {});
    ASSERT_TRUE(r.applicable) << what;
    ASSERT_EQ(r.devices.size(), 1U) << what;
    const LabelSums s = sum_labels(r.devices[0].labels);
    EXPECT_NEAR(us(s.all), row.busy, 0.001) << what;
    EXPECT_NEAR(us(s.with_computation), row.compute, 0.001) << what;
    // Communication only = |COMM − COMP|: the labels with communication and no computation.
    EXPECT_NEAR(us(s.with_communication - s.computation_and_communication), row.communication_only,
                0.001)
        << what;
    EXPECT_NEAR(us(s.memory_alone), row.memory_only, 0.001) << what;
    EXPECT_NEAR(s.shares, 1.0, 1e-9) << what;
    if (row.overlap_percent < 0) {
      EXPECT_EQ(s.with_communication, 0) << what;
    } else {
      ASSERT_GT(s.with_communication, 0) << what;
      EXPECT_NEAR(100.0 * static_cast<double>(s.computation_and_communication) /
                      static_cast<double>(s.with_communication),
                  row.overlap_percent, 0.005)
          << what;
    }
  }
}

TEST(KernelBreakdownConformance, TopKernelsAreConsistentWithTheirInstances) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/nccl_parser_config");
  const Trace& trace = set.ranks[0];
  const KernelBreakdownResult r = compute_kernel_breakdown(trace, find_steps(trace, {}), {});
  const DeviceKernels& d = r.devices[0];
  ASSERT_EQ(d.top.size(), 10U);
  std::int64_t top_ns = 0;
  std::int64_t top_count = 0;
  for (std::size_t i = 0; i < d.top.size(); ++i) {
    const KernelRow& k = d.top[i];
    if (i > 0) {
      EXPECT_GE(d.top[i - 1].total_ns, k.total_ns);
    }
    EXPECT_LE(k.min_ns, k.mean_ns);
    EXPECT_LE(k.mean_ns, k.max_ns);
    EXPECT_NEAR(k.mean_ns * static_cast<double>(k.count), static_cast<double>(k.total_ns), 1.0);
    top_ns += k.total_ns;
    top_count += k.count;
  }
  EXPECT_EQ(top_ns + d.others_ns, d.activity_ns);
  // Every collective of the trace lies in W (conformance.md §9): 15 all-reduces, 6 broadcasts.
  ASSERT_FALSE(d.top_by_class[1].empty());
  std::int64_t collectives = 0;
  for (const KernelRow& k : d.top_by_class[1]) collectives += k.count;
  EXPECT_EQ(collectives + d.others_count_by_class[1], 21);
  EXPECT_GT(top_count, 0);
}

}  // namespace
}  // namespace stepscope
