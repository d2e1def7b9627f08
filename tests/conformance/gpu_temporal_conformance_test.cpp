// Native GPU temporal figures against conformance.md §6 (±0.001 µs).
#include <gtest/gtest.h>

#include "stepscope/analysis/gpu_temporal.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

struct Expected {
  std::string folder;
  std::int64_t rank;
  double window, busy, idle, compute, communication_only, memory_only;
  double overlap_percent;  // < 0: none (no communication)
};

const std::vector<Expected> kTable = {
    {"hta/amd_trace", 0, 9288.291, 149.042, 9139.249, 110.881, 0, 38.161, -1},
    {"hta/critical_path/alexnet", 0, 12920244, 66141, 12854103, 10630, 0, 55511, -1},
    {"hta/df_index_resolver", 1, 1737902, 1000613, 737289, 620516, 357343, 22754, 0.00},
    {"hta/nccl_parser_config", 0, 667225.958, 157500.014, 509725.944, 115655.847, 39559.468,
     2284.699, 15.61},
    {"hta/negative_queue_length_values_check", 0, 1229227, 438418, 790809, 210998, 185317, 42103,
     1.36},
    {"hta/ns_resolution_trace", 0, 483517.602, 472454.441, 11063.161, 468153.602, 0, 4300.839, -1},
    {"hta/sampled_two_ranks", 0, 1230289, 547656, 682633, 210320, 336983, 353, 14.95},
    {"hta/sampled_two_ranks", 1, 1238593, 580050, 658543, 271973, 303523, 4554, 19.93},
    {"hta/trace_diff/control", 3, 465171, 388587, 76584, 281336, 87921, 19330, 46.24},
    {"hta/trace_diff/test", 1, 744515, 717437, 27078, 547949, 73298, 96190, 70.84},
};

double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

TEST(GpuTemporalConformance, NativeTableOfConformanceSection6) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const Expected& row : kTable) {
    const TraceSet set = testing::load_shared(row.folder);
    const Trace* trace = nullptr;
    for (const Trace& t : set.ranks) {
      if (t.rank == row.rank) trace = &t;
    }
    ASSERT_NE(trace, nullptr) << row.folder;
    const StepsResult steps = find_steps(*trace, {});
    const GpuTemporalResult result = compute_gpu_temporal(*trace, steps, {});
    ASSERT_TRUE(result.applicable) << row.folder;
    ASSERT_EQ(result.devices.size(), 1U) << row.folder;
    const DeviceTemporal& d = result.devices[0];
    const std::string what = row.folder + " rank " + std::to_string(row.rank);
    EXPECT_NEAR(us(d.window_ns), row.window, 0.001) << what;
    EXPECT_NEAR(us(d.busy_ns), row.busy, 0.001) << what;
    EXPECT_NEAR(us(d.idle_ns), row.idle, 0.001) << what;
    EXPECT_NEAR(us(d.compute_ns), row.compute, 0.001) << what;
    EXPECT_NEAR(us(d.communication_only_ns), row.communication_only, 0.001) << what;
    EXPECT_NEAR(us(d.memory_only_ns), row.memory_only, 0.001) << what;
    if (row.overlap_percent < 0) {
      EXPECT_FALSE(d.overlap_share.has_value()) << what;
    } else {
      ASSERT_TRUE(d.overlap_share.has_value()) << what;
      EXPECT_NEAR(*d.overlap_share * 100, row.overlap_percent, 0.005) << what;
    }
  }
}

TEST(GpuTemporalConformance, CpuOnlyTraceIsNotApplicable) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/cpu_only");
  const GpuTemporalResult result =
      compute_gpu_temporal(set.ranks[0], find_steps(set.ranks[0], {}), {});
  EXPECT_FALSE(result.applicable);
  EXPECT_EQ(result.not_applicable_reason, "no GPU activity");
}

}  // namespace
}  // namespace stepscope
