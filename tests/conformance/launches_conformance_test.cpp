// Native launch statistics and queue length against conformance.md §5 notes and §10.
#include <gtest/gtest.h>

#include "stepscope/analysis/launches.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

LaunchResult launches_of(const std::string& folder) {
  const TraceSet set = testing::load_shared(folder);
  EXPECT_FALSE(set.ranks.empty());
  const Trace& trace = set.ranks.front();
  return compute_launches(trace, find_steps(trace, {}), {});
}

const LaunchClassStats& of(const LaunchResult& r, LaunchClass c) {
  return r.classes[static_cast<std::size_t>(c)];
}

TEST(LaunchesConformance, AmdTraceHipLaunchesAreFound) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const LaunchResult r = launches_of("hta/amd_trace");
  const LaunchClassStats& kernels = of(r, LaunchClass::kKernelLaunch);
  EXPECT_EQ(kernels.count, 14);
  EXPECT_NEAR(kernels.launch_delay_ns.p50 / 1000, 6.7425, 1e-4);
  EXPECT_NEAR(kernels.launch_delay_ns.max / 1000, 8.177, 1e-4);
  EXPECT_EQ(kernels.negative_delay_count, 0);
  EXPECT_NEAR(kernels.cpu_duration_total_ns / 1000.0, 6638.561, 1e-3);
  EXPECT_NEAR(kernels.gpu_duration_total_ns / 1000.0, 110.881, 1e-3);
  const LaunchClassStats& sync = of(r, LaunchClass::kSyncMemory);
  EXPECT_EQ(sync.count, 2);
  EXPECT_EQ(sync.negative_delay_count, 2);
  EXPECT_NEAR(sync.cpu_duration_total_ns / 1000.0, 95.772, 1e-3);
  EXPECT_NEAR(sync.gpu_duration_total_ns / 1000.0, 38.161, 1e-3);
}

TEST(LaunchesConformance, TritonDriverLaunchCounts) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const LaunchResult r = launches_of("hta/triton_example");
  EXPECT_EQ(of(r, LaunchClass::kKernelLaunch).count, 1);
}

TEST(LaunchesConformance, DeepQueuesOfGpuBoundTraces) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // HTA's maxima on its scope (last step dropped) are 1,022 and 946 on stream 7; native W keeps
  // the last step, so the native maximum is at least as deep.
  for (const auto& [folder, hta_max] : std::vector<std::pair<std::string, std::int64_t>>{
           {"hta/ns_resolution_trace", 1022}, {"hta/negative_queue_length_values_check", 946}}) {
    const LaunchResult r = launches_of(folder);
    std::int64_t stream7 = -1;
    for (const StreamQueue& q : r.queues) {
      if (q.stream == 7) stream7 = q.max_depth;
    }
    EXPECT_GE(stream7, hta_max) << folder;
    EXPECT_LE(stream7, LaunchResult::kQueueLimit) << folder;
  }
}

}  // namespace
}  // namespace stepscope
