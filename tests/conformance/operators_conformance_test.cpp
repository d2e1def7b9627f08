// The operator table (docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12) on the
// shared real traces: its sums must agree with each other and, where a single stream makes a sum of
// durations a union, with the busy time of conformance.md §6; attribution must take the correlation
// fallback on the five traces whose External ids are correlation ids.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/analysis/operators.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

void expect_consistent_sums(const OperatorsResult& r, const std::string& what) {
  std::int64_t self_device = 0;
  std::int64_t self_cpu = 0;
  std::int64_t unattributed_rows = 0;
  for (const OperatorRow& row : r.rows) {
    EXPECT_LE(row.self_cpu_ns, row.total_cpu_ns) << what << " " << row.name;
    EXPECT_LE(row.self_device_ns, row.total_device_ns) << what << " " << row.name;
    EXPECT_GE(row.self_cpu_ns, 0) << what << " " << row.name;
    self_cpu += row.self_cpu_ns;
    if (row.unattributed) {
      ++unattributed_rows;
      EXPECT_EQ(row.self_device_ns, r.unattributed_device_ns) << what;
    } else {
      self_device += row.self_device_ns;
    }
  }
  EXPECT_EQ(self_device, r.attributed_device_ns) << what;
  EXPECT_EQ(self_cpu, r.self_cpu_total_ns) << what;
  EXPECT_EQ(unattributed_rows, r.unattributed_activities > 0 ? 1 : 0) << what;
  std::int64_t device_rows = 0;
  std::int64_t device_rows_unattributed = 0;
  for (const DeviceActivityRow& row : r.device_rows) {
    device_rows += row.device_ns;
    device_rows_unattributed += row.unattributed_count;
  }
  EXPECT_EQ(device_rows, r.device_total_ns) << what;
  EXPECT_EQ(device_rows_unattributed, r.unattributed_activities) << what;
  EXPECT_EQ(r.attributed_device_ns + r.unattributed_device_ns, r.device_total_ns) << what;
  if (r.device_total_ns > 0) {
    EXPECT_DOUBLE_EQ(r.attributed_device_share, static_cast<double>(r.attributed_device_ns) /
                                                    static_cast<double>(r.device_total_ns))
        << what;
  }
}

struct Expectation {
  const char* folder;
  bool external_id_is_correlation;  // conformance.md §5 notes,
                                    // docs/metrics/12-operator-table-like-torch-profiler-key-a.md
                                    // §12
  double min_attributed_share;
};

TEST(OperatorsConformance, SumsAgreeAndAttributionTakesTheRightPath) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::vector<Expectation> traces = {
      {"hta/amd_trace", false, 1.0},
      {"hta/critical_path/alexnet", false, 1.0},
      {"hta/df_index_resolver", true, 1.0},
      {"hta/nccl_parser_config", false, 1.0},
      // 872 activities (59.5 ms) have no launch call in the trace at all.
      {"hta/negative_queue_length_values_check", true, 0.86},
      {"hta/ns_resolution_trace", false, 1.0},
      {"hta/sampled_two_ranks", true, 1.0},
      {"hta/trace_diff/control", true, 1.0},
      {"hta/trace_diff/test", true, 0.94},
  };
  for (const Expectation& expected : traces) {
    const TraceSet set = testing::load_shared(expected.folder);
    for (const Trace& trace : set.ranks) {
      const std::string what = std::string(expected.folder) + " rank " + std::to_string(trace.rank);
      const OperatorsResult r = compute_operators(trace, find_steps(trace, {}), {});
      ASSERT_TRUE(r.applicable) << what;
      expect_consistent_sums(r, what);
      EXPECT_GE(r.attributed_device_share, expected.min_attributed_share) << what;
      if (expected.external_id_is_correlation) {
        EXPECT_EQ(r.attributed_by_external_id, 0) << what;
        EXPECT_GT(r.attributed_through_launch_call, 0) << what;
      } else {
        EXPECT_GT(r.attributed_by_external_id + r.attributed_through_launch_call, 0) << what;
      }
    }
  }
}

TEST(OperatorsConformance, CurrentTracesAttributeByExternalId) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const char* folder :
       {"hta/amd_trace", "hta/nccl_parser_config", "hta/ns_resolution_trace"}) {
    const TraceSet set = testing::load_shared(folder);
    const Trace& trace = set.ranks.front();
    const OperatorsResult r = compute_operators(trace, find_steps(trace, {}), {});
    EXPECT_GT(r.attributed_by_external_id, 0) << folder;
    EXPECT_EQ(r.attributed_through_launch_call, 0) << folder;
  }
}

TEST(OperatorsConformance, DeviceTimeEqualsBusyTimeWhereNothingOverlaps) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // conformance.md §6 busy time (a union) of traces whose device activities never overlap, so
  // the table's sum of durations must equal it to the ns: amd_trace 149.042 µs,
  // ns_resolution_trace 472,454.441 µs, df_index_resolver 1,000,613 µs.
  for (const auto& [folder, busy_ns] : std::vector<std::pair<std::string, std::int64_t>>{
           {"hta/amd_trace", 149'042},
           {"hta/ns_resolution_trace", 472'454'441},
           {"hta/df_index_resolver", 1'000'613'000}}) {
    const TraceSet set = testing::load_shared(folder);
    const Trace& trace = set.ranks.front();
    const OperatorsResult r = compute_operators(trace, find_steps(trace, {}), {});
    EXPECT_EQ(r.device_total_ns, busy_ns) << folder;
  }
}

TEST(OperatorsConformance, CpuOnlyTraceHasAHostTable) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // conformance.md §10: CPU-only traces report the operator table.
  const TraceSet set = testing::load_shared("hta/cpu_only");
  const Trace& trace = set.ranks.front();
  const OperatorsResult r = compute_operators(trace, find_steps(trace, {}), {});
  EXPECT_TRUE(r.applicable);
  EXPECT_GT(r.self_cpu_total_ns, 0);
  EXPECT_EQ(r.device_total_ns, 0);
  EXPECT_TRUE(r.device_rows.empty());
}

}  // namespace
}  // namespace stepscope
