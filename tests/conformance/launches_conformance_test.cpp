// Native launch statistics (docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7) against
// conformance.md: the amd_trace notes of §5, triton_example of §10, and HTA's launch rows of §5
// reproduced in HTA's scope.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/analysis/launches.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

const Trace& rank_of(const TraceSet& set, std::int64_t rank) {
  for (const Trace& trace : set.ranks) {
    if (trace.rank == rank) return trace;
  }
  ADD_FAILURE() << "no rank " << rank;
  return set.ranks.front();
}

TEST(LaunchesConformance, AmdTraceHipLaunchesMatchTheNotes) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/amd_trace");
  const Trace& trace = set.ranks.front();
  const LaunchesResult r = compute_launches(trace, find_steps(trace, {}), {});
  const LaunchClassStats& kernels = r.of(LaunchClass::kKernelLaunch);
  EXPECT_EQ(kernels.count, 14);
  EXPECT_DOUBLE_EQ(kernels.launch_delay_ns.p50, 6'742.5);  // 6.7425 µs
  EXPECT_DOUBLE_EQ(kernels.launch_delay_ns.max, 8'177);
  EXPECT_EQ(kernels.signed_delay_negative_count, 0);
  EXPECT_EQ(kernels.cpu_duration_total_ns, 6'638'561);
  EXPECT_EQ(kernels.gpu_duration_total_ns, 110'881);
  EXPECT_EQ(kernels.launch_delay_total_ns, 92'319);
  EXPECT_DOUBLE_EQ(kernels.cpu_duration_ns.max, 6'543'109);  // first-launch code loading
  const LaunchClassStats& sync = r.of(LaunchClass::kSyncMemory);
  EXPECT_EQ(sync.count, 2);
  EXPECT_EQ(sync.signed_delay_negative_count, 2);
  EXPECT_EQ(sync.cpu_duration_total_ns, 95'772);
  EXPECT_EQ(sync.gpu_duration_total_ns, 38'161);
  EXPECT_EQ(r.of(LaunchClass::kAsyncMemory).count, 0);
  EXPECT_EQ(r.outside_window_pairs, 0);
}

TEST(LaunchesConformance, TritonDriverLaunchCounts) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/triton_example");
  const Trace& trace = set.ranks.front();
  const LaunchesResult r = compute_launches(trace, find_steps(trace, {}), {});
  EXPECT_EQ(r.of(LaunchClass::kKernelLaunch).count, 1);  // cuLaunchKernel, which HTA misses
  EXPECT_TRUE(r.applicable);
}

// HTA's launch table (conformance.md §5), and where HTA rounds fractional timestamps, the
// `hta_rounding` off values of the notes, which are exact nanoseconds like native mode.
struct HtaLaunchRow {
  const char* folder;
  std::int64_t rank;
  std::int64_t launches;
  std::int64_t cpu_total_ns;
  std::int64_t gpu_total_ns;
  std::int64_t cpu_over_50us;  // -1: not comparable (HTA compares rounded µs)
  std::int64_t delay_over_100us;
};

// HTA's scope as a window (docs/metrics/00-conventions-for-every-figure.md §0.6): launch calls
// before the last host step's start; with fewer than two steps, no filter.
StepsResult hta_scope(const Trace& trace) {
  const StepsResult steps = find_steps(trace, {});
  StepsResult scope;
  scope.window =
      Interval{trace.events.start_ns.front(),
               steps.steps.size() >= 2 ? steps.steps.back().host_start_ns : INT64_MAX / 2};
  return scope;
}

TEST(LaunchesConformance, HtaLaunchRowsInHtasScope) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::vector<HtaLaunchRow> rows = {
      {"hta/critical_path/alexnet", 0, 98, 3'113'616'000, 66'203'000, 11, 43},
      {"hta/df_index_resolver", 1, 17'832, 156'892'000, 753'057'000, 2, 6'605},
      {"hta/nccl_parser_config", 0, 2'516, 23'787'895, 102'977'881, -1, -1},
      {"hta/negative_queue_length_values_check", 0, 5'224, 684'500'000, 233'886'000, 110, 5'083},
      {"hta/ns_resolution_trace", 0, 4'876, 195'772'848, 378'181'762, 675, -1},
      {"hta/sampled_two_ranks", 0, 602, 5'109'000, 302'241'000, 0, 469},
      {"hta/sampled_two_ranks", 1, 577, 4'988'000, 306'242'000, 0, 442},
      {"hta/trace_diff/control", 3, 7'875, 115'050'000, 413'947'000, 25, 5'111},
      {"hta/trace_diff/test", 1, 8'310, 297'921'000, 533'840'000, 65, 8'142},
  };
  for (const HtaLaunchRow& row : rows) {
    const TraceSet set = testing::load_shared(row.folder);
    const Trace& trace = rank_of(set, row.rank);
    const LaunchesResult r = compute_launches(trace, hta_scope(trace), {});
    // HTA's list: cudaLaunchKernel(ExC) and async memcpy/memset, i.e. these two classes here.
    const LaunchClassStats& k = r.of(LaunchClass::kKernelLaunch);
    const LaunchClassStats& m = r.of(LaunchClass::kAsyncMemory);
    const std::string what = std::string(row.folder) + " rank " + std::to_string(row.rank);
    EXPECT_EQ(k.count + m.count, row.launches) << what;
    EXPECT_EQ(k.cpu_duration_total_ns + m.cpu_duration_total_ns, row.cpu_total_ns) << what;
    EXPECT_EQ(k.gpu_duration_total_ns + m.gpu_duration_total_ns, row.gpu_total_ns) << what;
    if (row.cpu_over_50us >= 0) {
      EXPECT_EQ(k.cpu_duration_over_50us_count + m.cpu_duration_over_50us_count, row.cpu_over_50us)
          << what;
    }
    if (row.delay_over_100us >= 0) {
      EXPECT_EQ(k.launch_delay_over_100us_count + m.launch_delay_over_100us_count,
                row.delay_over_100us)
          << what;
    }
  }
}

}  // namespace
}  // namespace stepscope
