// Native GPU temporal figures against conformance.md §6 (every column, ±0.001 µs on times).
#include <gtest/gtest.h>

#include "conformance/native_expectations.h"
#include "stepscope/analysis/gpu_temporal.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

using testing::us;

std::vector<std::int64_t> kept_numbers(const StepsResult& steps) {
  std::vector<std::int64_t> numbers;
  for (const Step* step : steps.kept()) numbers.push_back(step->number);
  return numbers;
}

TEST(GpuTemporalConformance, NativeTableOfConformanceSection6) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const testing::NativeExpectation& row : testing::native_expectations()) {
    const TraceSet set = testing::load_shared(row.folder);
    const Trace* trace = testing::rank_of(set, row.rank);
    ASSERT_NE(trace, nullptr) << row.folder;
    const std::string what = row.folder + " rank " + std::to_string(row.rank);
    const StepsResult steps = find_steps(*trace, {});
    EXPECT_EQ(kept_numbers(steps), row.kept_steps) << what;
    EXPECT_EQ(steps.window_source, row.kept_steps.empty()
                                       ? StepsResult::WindowSource::kGpuActivitySpan
                                       : StepsResult::WindowSource::kSteps)
        << what;
    const GpuTemporalResult result = compute_gpu_temporal(*trace, steps, {});
    ASSERT_TRUE(result.applicable) << what;
    ASSERT_EQ(result.devices.size(), 1U) << what;
    const DeviceTemporal& d = result.devices[0];
    EXPECT_NEAR(us(d.window_ns), row.window, 0.001) << what;
    EXPECT_NEAR(us(d.busy_ns), row.busy, 0.001) << what;
    EXPECT_NEAR(us(d.idle_ns), row.idle, 0.001) << what;
    EXPECT_NEAR(d.share(d.idle_ns) * 100, row.idle_percent, 0.005) << what;
    EXPECT_NEAR(us(d.compute_ns), row.compute, 0.001) << what;
    EXPECT_NEAR(us(d.communication_only_ns), row.communication_only, 0.001) << what;
    EXPECT_NEAR(us(d.memory_only_ns), row.memory_only, 0.001) << what;
    if (row.overlap_percent < 0) {
      EXPECT_FALSE(d.overlap_share.has_value()) << what;
    } else {
      ASSERT_TRUE(d.overlap_share.has_value()) << what;
      EXPECT_NEAR(*d.overlap_share * 100, row.overlap_percent, 0.005) << what;
    }
    // The §13 timeline identity: computation + exposed comm + exposed memory + idle = span.
    EXPECT_EQ(d.compute_ns + d.communication_only_ns + d.memory_only_ns + d.timeline_idle_ns,
              d.timeline_span_ns)
        << what;
    EXPECT_LE(d.timeline_span_ns, d.window_ns) << what;
  }
}

TEST(GpuTemporalConformance, PerStepOverlapAddsUpOverDisjointSteps) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // On nccl_parser_config the three kept steps do not overlap and cover every collective in W.
  const TraceSet set = testing::load_shared("hta/nccl_parser_config");
  const Trace& trace = set.ranks[0];
  const GpuTemporalResult r = compute_gpu_temporal(trace, find_steps(trace, {}), {});
  ASSERT_EQ(r.steps.size(), 3U);
  const DeviceTemporal& d = r.devices[0];
  ASSERT_EQ(d.steps.size(), 3U);
  std::int64_t communication = 0;
  std::int64_t exposed = 0;
  for (std::size_t s = 0; s < 3; ++s) {
    communication += d.steps[s].communication_ns;
    exposed += d.steps[s].exposed_communication_ns;
    // One device: the rank-level rows are the device's.
    EXPECT_EQ(d.steps[s].exposed_communication_ns, r.steps[s].exposed_communication_ns);
    EXPECT_TRUE(d.steps[s].overlap_share.has_value());
  }
  EXPECT_EQ(communication, d.communication_ns);
  EXPECT_EQ(exposed, d.communication_only_ns);
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
