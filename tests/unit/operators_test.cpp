#include <gtest/gtest.h>

#include "stepscope/analysis/operators.h"
#include "support/shared_traces.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

const OperatorRow* row(const OperatorTable& table, const std::string& name) {
  for (const OperatorRow& r : table.rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

OperatorTable table_of(const Trace& trace, bool by_shape = false) {
  AnalysisOptions options;
  options.group_by_input_shape = by_shape;
  return compute_operators(trace, find_steps(trace, {}), options);
}

TEST(Operators, SelfAndTotalTimesWithDeviceAttribution) {
  const Trace trace = TraceFixture()
                          .op("A", 0, 100, 1, 1)
                          .op("B", 10, 50, 1, 2)
                          .runtime("cudaLaunchKernel", 20, 5, 5, 1, 2)
                          .kernel("k1", 30, 30, 5, 7, 0, 2)
                          .op("aten::is_leaf", 62, 3, 1, 3)
                          .runtime("cudaLaunchKernel", 70, 2, 6, 1, 1)
                          .kernel("k2", 80, 10, 6, 7, 0, 1)
                          .load();
  const OperatorTable table = table_of(trace);
  const OperatorRow* a = row(table, "A");
  const OperatorRow* b = row(table, "B");
  const OperatorRow* launch = row(table, "cudaLaunchKernel");
  ASSERT_TRUE(a && b && launch);
  EXPECT_EQ(row(table, "aten::is_leaf"), nullptr);  // dropped as PyTorch does
  EXPECT_EQ(a->total_cpu_ns, 100'000);
  EXPECT_EQ(a->self_cpu_ns, 48'000);  // minus B (50) and its launch (2); is_leaf stays in A
  EXPECT_EQ(a->self_device_ns, 10'000);
  EXPECT_EQ(a->total_device_ns, 40'000);
  EXPECT_EQ(b->self_cpu_ns, 45'000);
  EXPECT_EQ(b->self_device_ns, 30'000);
  EXPECT_EQ(launch->calls, 2);
  EXPECT_EQ(launch->self_cpu_ns, 7'000);
  EXPECT_EQ(table.attributed_device_ns, 40'000);
  EXPECT_DOUBLE_EQ(table.attributed_device_share, 1.0);
}

TEST(Operators, CorrelationFallbackAndUnattributedActivity) {
  // External ids carry correlation ids (older traces): attribution goes through the call.
  const Trace trace = TraceFixture()
                          .op("aten::mm", 0, 50, 1, 500)
                          .runtime("cudaLaunchKernel", 10, 5, 77, 1, 77)
                          .kernel("gemm", 20, 20, 77, 7, 0, 77)
                          .kernel("ncclKernel_AllReduce", 60, 30, 78, 9, 0, 78)
                          .load();
  const OperatorTable table = table_of(trace);
  ASSERT_NE(row(table, "aten::mm"), nullptr);
  EXPECT_EQ(row(table, "aten::mm")->self_device_ns, 20'000);
  EXPECT_EQ(table.unattributed_device_ns, 30'000);
  EXPECT_EQ(table.unattributed_activities, 1);
  EXPECT_DOUBLE_EQ(table.attributed_device_share, 0.4);
}

TEST(Operators, SingleSameNameChildIsMergedAndShapesGroup) {
  const Trace trace = TraceFixture()
                          .op("aten::linear", 0, 40, 1, 1, R"("Input Dims":[[8,16]])")
                          .op("aten::linear", 1, 38, 1, 2, R"("Input Dims":[[8,16]])")
                          .op("aten::addmm", 2, 30, 1, 3)
                          .op("aten::linear", 100, 40, 1, 4, R"("Input Dims":[[4,16]])")
                          .load();
  const OperatorTable table = table_of(trace);
  EXPECT_EQ(table.merged_single_children, 1);
  ASSERT_NE(row(table, "aten::linear"), nullptr);
  EXPECT_EQ(row(table, "aten::linear")->calls, 2);
  EXPECT_EQ(row(table, "aten::linear")->self_cpu_ns, 10'000 + 40'000);
  const OperatorTable by_shape = table_of(trace, true);
  int linear_rows = 0;
  for (const OperatorRow& r : by_shape.rows) linear_rows += r.name == "aten::linear" ? 1 : 0;
  EXPECT_EQ(linear_rows, 2);
}

TEST(Operators, DeviceTimeSumsAreConsistentOnRealTraces) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const char* folder : {"hta/trace_diff/control", "hta/df_index_resolver",
                             "hta/ns_resolution_trace", "hta/amd_trace"}) {
    const TraceSet set = testing::load_shared(folder);
    const OperatorTable table = table_of(set.ranks.front());
    std::int64_t self_device = 0;
    for (const OperatorRow& r : table.rows) {
      self_device += r.self_device_ns;
      EXPECT_LE(r.self_cpu_ns, r.total_cpu_ns) << folder << " " << r.name;
      EXPECT_LE(r.self_device_ns, r.total_device_ns) << folder << " " << r.name;
    }
    EXPECT_EQ(self_device, table.attributed_device_ns) << folder;
    // Most device time is attributed, even where External ids are correlation ids.
    EXPECT_GT(table.attributed_device_share, 0.5) << folder;
  }
}

}  // namespace
}  // namespace stepscope
