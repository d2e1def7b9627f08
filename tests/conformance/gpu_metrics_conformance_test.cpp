// GPU summary metrics against conformance.md §7 "GPU summary per device" (compat-tb), and native
// invariants on the same traces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepscope/analysis/gpu_metrics.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

constexpr double kAbsent = -1;  // "—" in the table

struct ExpectedGpu {
  std::string folder;
  std::int64_t rank;
  std::int32_t device;
  double utilization_percent;
  double sm_efficiency_percent;
  double occupancy_percent;
  double tensor_core_percent;      // over op-attributed kernels
  double tensor_core_all_percent;  // tc_used_ratio
};

// conformance.md §7.
const std::vector<ExpectedGpu> kTb = {
    {"hta/amd_trace", 0, 2, 1.19, kAbsent, kAbsent, 0.00, 0.00},
    {"hta/critical_path/alexnet", 0, 0, 0.02, 0.02, 38.42, 0.00, 0.00},
    {"hta/df_index_resolver", 1, 1, 56.27, 34.12, 31.95, kAbsent, 0.00},
    {"hta/nccl_parser_config", 0, 0, 23.26, 16.87, 35.31, 16.38, 16.38},
    {"hta/negative_queue_length_values_check", 0, 0, 32.24, 17.49, 12.54, kAbsent, 29.65},
    {"hta/ns_resolution_trace", 0, 0, 96.83, 94.92, 46.45, 0.00, 0.00},
    {"hta/sampled_two_ranks", 0, 0, 44.49, 20.76, 21.04, kAbsent, 9.03},
    {"hta/sampled_two_ranks", 1, 1, 46.46, 25.19, 25.19, kAbsent, 8.63},
    {"hta/trace_diff/control", 3, 3, 79.38, 59.21, 32.46, kAbsent, 14.95},
    {"hta/trace_diff/test", 1, 1, 83.44, 70.53, 35.85, kAbsent, 0.00},
};

// conformance.md §2: ±0.01 points (the table is rounded to 0.01).
constexpr double kPoints = 0.01;

const Trace* find_rank(const TraceSet& set, std::int64_t rank) {
  for (const Trace& trace : set.ranks) {
    if (trace.rank == rank) return &trace;
  }
  return nullptr;
}

GpuMetricsResult metrics(const Trace& trace, Mode mode) {
  AnalysisOptions options;
  options.mode = mode;
  return compute_gpu_metrics(trace, find_steps(trace, options), options);
}

void expect_percent(const std::optional<double>& share, double expected, const std::string& what) {
  if (expected == kAbsent) {
    EXPECT_FALSE(share.has_value()) << what << " = " << share.value_or(0);
    return;
  }
  ASSERT_TRUE(share.has_value()) << what;
  EXPECT_NEAR(*share * 100.0, expected, kPoints) << what;
}

TEST(GpuMetricsConformance, CompatTbMatchesPluginSummary) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const ExpectedGpu& expected : kTb) {
    const TraceSet set = testing::load_shared(expected.folder);
    const Trace* trace = find_rank(set, expected.rank);
    ASSERT_NE(trace, nullptr) << expected.folder;
    const GpuMetricsResult result = metrics(*trace, Mode::kCompatTb);
    ASSERT_TRUE(result.applicable) << expected.folder;
    ASSERT_EQ(result.devices.size(), 1U) << expected.folder;
    const GpuDeviceMetrics& device = result.devices.front();
    const std::string what = expected.folder + " rank " + std::to_string(expected.rank);
    EXPECT_EQ(device.device, expected.device) << what;
    EXPECT_NEAR(device.utilization * 100.0, expected.utilization_percent, kPoints) << what;
    expect_percent(device.sm_efficiency, expected.sm_efficiency_percent, what + " SM efficiency");
    expect_percent(device.achieved_occupancy, expected.occupancy_percent, what + " occupancy");
    expect_percent(device.tensor_core_share, expected.tensor_core_percent, what + " tensor cores");
    expect_percent(result.tensor_core_share_all_kernels, expected.tensor_core_all_percent,
                   what + " tc_used_ratio");
  }
}

TEST(GpuMetricsConformance, NativeUtilizationWithMemoryMatchesBusyShare) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // conformance.md §6: busy (kernels, memcpys, memsets) over the native window.
  const std::vector<std::tuple<std::string, std::int64_t, double>> busy_us = {
      {"hta/df_index_resolver", 1, 1000613},
      {"hta/nccl_parser_config", 0, 157500.014},
      {"hta/trace_diff/control", 3, 388587},
      {"hta/critical_path/alexnet", 0, 66141},
  };
  for (const auto& [folder, rank, busy] : busy_us) {
    const TraceSet set = testing::load_shared(folder);
    const Trace* trace = find_rank(set, rank);
    ASSERT_NE(trace, nullptr) << folder;
    const GpuMetricsResult result = metrics(*trace, Mode::kNative);
    ASSERT_TRUE(result.applicable) << folder;
    ASSERT_EQ(result.devices.size(), 1U) << folder;
    EXPECT_NEAR(static_cast<double>(result.devices.front().busy_with_memory_ns) / 1000.0, busy,
                0.001)
        << folder;
    EXPECT_LE(result.devices.front().kernel_busy_ns, result.devices.front().busy_with_memory_ns);
    EXPECT_TRUE(result.tensor_core_heuristic);
  }
}

TEST(GpuMetricsConformance, CpuOnlyTraceIsNotApplicable) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/cpu_only");
  ASSERT_FALSE(set.ranks.empty());
  const GpuMetricsResult result = metrics(set.ranks.front(), Mode::kNative);
  EXPECT_FALSE(result.applicable);
  EXPECT_EQ(result.not_applicable_reason, "no GPU activity");
}

}  // namespace
}  // namespace stepscope
