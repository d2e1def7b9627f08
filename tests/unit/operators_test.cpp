// The operator table (docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12) on fixtures
// with exact expectations.
#include <gtest/gtest.h>

#include "render/json/json_sink.h"
#include "render/terminal/operators_text.h"
#include "stepscope/analysis/operators.h"
#include "stepscope/figures/operators_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

const OperatorRow* row(const OperatorsResult& result, const std::string& name) {
  for (const OperatorRow& r : result.rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const DeviceActivityRow* device_row(const OperatorsResult& result, const std::string& name) {
  for (const DeviceActivityRow& r : result.device_rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

OperatorsResult run(const Trace& trace, bool by_shape = false) {
  AnalysisOptions options;
  options.group_by_input_shape = by_shape;
  return compute_operators(trace, find_steps(trace, options), options);
}

// A [0,100] holds B [10,60] (which launches k1) and launches k2 itself. External ids (1, 2)
// differ from correlation ids (5, 6): current Kineto, attribution by External id.
Trace nested_ops() {
  return TraceFixture()
      .op("A", 0, 100, 1, 1)
      .op("B", 10, 50, 1, 2)
      .runtime("cudaLaunchKernel", 20, 5, 5, 1, 2)
      .kernel("k1", 30, 30, 5, 7, 0, 2)
      .op("aten::is_leaf", 62, 3, 1, 3)
      .runtime("cudaLaunchKernel", 70, 2, 6, 1, 1)
      .kernel("k2", 80, 10, 6, 7, 0, 1)
      .load();
}

TEST(Operators, SelfTimeExcludesChildrenAndRuntimeCalls) {
  const OperatorsResult r = run(nested_ops());
  const OperatorRow* a = row(r, "A");
  const OperatorRow* b = row(r, "B");
  const OperatorRow* launch = row(r, "cudaLaunchKernel");
  ASSERT_TRUE(a && b && launch);
  EXPECT_EQ(row(r, "aten::is_leaf"), nullptr);  // dropped as PyTorch does: its time stays in A
  EXPECT_EQ(a->total_cpu_ns, 100'000);
  EXPECT_EQ(a->self_cpu_ns, 48'000);  // minus B (50) and its own launch call (2)
  EXPECT_EQ(a->self_device_ns, 10'000);
  EXPECT_EQ(a->total_device_ns, 40'000);
  EXPECT_EQ(b->self_cpu_ns, 45'000);
  EXPECT_EQ(b->self_device_ns, 30'000);
  EXPECT_EQ(b->total_device_ns, 30'000);
  EXPECT_EQ(launch->calls, 2);
  EXPECT_EQ(launch->self_cpu_ns, 7'000);
  EXPECT_EQ(launch->avg_self_cpu_ns, 3'500);
  EXPECT_EQ(launch->self_device_ns, 0);  // kernels belong to ops, not to their launch calls
  EXPECT_EQ(r.self_cpu_total_ns, 100'000);
  EXPECT_DOUBLE_EQ(a->self_cpu_share, 0.48);
  EXPECT_DOUBLE_EQ(b->self_device_share, 0.75);
  EXPECT_EQ(r.attributed_device_ns, 40'000);
  EXPECT_EQ(r.device_total_ns, 40'000);
  EXPECT_DOUBLE_EQ(r.attributed_device_share, 1.0);
  EXPECT_EQ(r.attributed_by_external_id, 2);
  EXPECT_EQ(r.attributed_through_launch_call, 0);
  EXPECT_EQ(r.rows.front().name, "B");  // largest self device time first
  EXPECT_FALSE(r.scope.has_value());    // no steps: the whole trace
}

TEST(Operators, CorrelationFallbackAndTheUnattributedRow) {
  // Older traces: External id = correlation id, matching no op; attribution goes through the
  // launch call's enclosing op. The NCCL kernel has no launch call at all.
  const Trace trace = TraceFixture()
                          .op("aten::mm", 0, 50, 1, 500)
                          .runtime("cudaLaunchKernel", 10, 5, 77, 1, 77)
                          .kernel("gemm", 20, 20, 77, 7, 0, 77)
                          .kernel("ncclKernel_AllReduce", 60, 30, 78, 9, 0, 78)
                          .load();
  const OperatorsResult r = run(trace);
  ASSERT_NE(row(r, "aten::mm"), nullptr);
  EXPECT_EQ(row(r, "aten::mm")->self_device_ns, 20'000);
  EXPECT_EQ(r.attributed_through_launch_call, 1);
  EXPECT_EQ(r.attributed_by_external_id, 0);
  EXPECT_EQ(r.unattributed_device_ns, 30'000);
  EXPECT_EQ(r.unattributed_activities, 1);
  EXPECT_DOUBLE_EQ(r.attributed_device_share, 0.4);
  const OperatorRow* unattributed = row(r, "[unattributed]");
  ASSERT_NE(unattributed, nullptr);
  EXPECT_TRUE(unattributed->unattributed);
  EXPECT_EQ(unattributed->self_device_ns, 30'000);
  EXPECT_EQ(unattributed->self_cpu_ns, 0);
  EXPECT_DOUBLE_EQ(unattributed->self_device_share, 0.6);
  ASSERT_NE(device_row(r, "ncclKernel_AllReduce"), nullptr);
  EXPECT_EQ(device_row(r, "ncclKernel_AllReduce")->unattributed_count, 1);
  EXPECT_EQ(device_row(r, "gemm")->unattributed_count, 0);
}

TEST(Operators, ExternalIdWinsOverTheLaunchCallsThread) {
  // The kernel's External id names X on thread 1, though its launch call runs inside Y on
  // thread 2: the id decides (docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12), the
  // call is only the fallback.
  const Trace trace = TraceFixture()
                          .op("X", 0, 50, 1, 10)
                          .op("Y", 0, 50, 2, 20)
                          .runtime("cudaLaunchKernel", 10, 5, 7, 2, 10)
                          .kernel("k", 20, 8, 7, 7, 0, 10)
                          .load();
  const OperatorsResult r = run(trace);
  EXPECT_EQ(row(r, "X")->self_device_ns, 8'000);
  EXPECT_EQ(row(r, "Y")->self_device_ns, 0);
  EXPECT_EQ(row(r, "Y")->self_cpu_ns, 45'000);  // the call is Y's child on Y's thread
  EXPECT_EQ(r.attributed_by_external_id, 1);
}

TEST(Operators, SingleSameNameChildrenMergeAndShapesGroup) {
  const Trace trace = TraceFixture()
                          .op("aten::linear", 0, 40, 1, 1, R"("Input Dims":[[8,16]])")
                          .op("aten::linear", 1, 38, 1, 2, R"("Input Dims":[[8,16]])")
                          .op("aten::addmm", 2, 30, 1, 3)
                          .op("aten::linear", 100, 40, 1, 4, R"("Input Dims":[[4,16]])")
                          // a chain of three wrappers becomes one node holding the kernel
                          .op("wrap", 200, 30, 1, 5)
                          .op("wrap", 201, 28, 1, 6)
                          .op("wrap", 202, 26, 1, 7)
                          .runtime("cudaLaunchKernel", 203, 2, 8, 1, 7)
                          .kernel("w", 210, 4, 8, 7, 0, 7)
                          .load();
  const OperatorsResult r = run(trace);
  EXPECT_EQ(r.merged_single_children, 3);
  ASSERT_NE(row(r, "aten::linear"), nullptr);
  EXPECT_EQ(row(r, "aten::linear")->calls, 2);
  EXPECT_EQ(row(r, "aten::linear")->self_cpu_ns, 10'000 + 40'000);  // 40 - addmm 30, and 40
  const OperatorRow* wrap = row(r, "wrap");
  ASSERT_NE(wrap, nullptr);
  EXPECT_EQ(wrap->calls, 1);
  EXPECT_EQ(wrap->total_cpu_ns, 30'000);
  EXPECT_EQ(wrap->self_cpu_ns, 28'000);  // minus the launch call, which moved up
  EXPECT_EQ(wrap->self_device_ns, 4'000);
  const OperatorsResult by_shape = run(trace, true);
  int linear_rows = 0;
  for (const OperatorRow& r2 : by_shape.rows) {
    if (r2.name != "aten::linear") continue;
    ++linear_rows;
    EXPECT_EQ(r2.calls, 1);
    EXPECT_TRUE(r2.input_dims == "[[8,16]]" || r2.input_dims == "[[4,16]]") << r2.input_dims;
  }
  EXPECT_EQ(linear_rows, 2);
}

TEST(Operators, RecursionKeepsBothLevels) {
  const Trace trace = TraceFixture()
                          .op("f", 0, 100)
                          .op("g", 10, 80)
                          .op("f", 20, 30)
                          .op("h", 60, 10)
                          // two same-name children: no merge
                          .op("r", 200, 100)
                          .op("r", 210, 10)
                          .op("r", 230, 10)
                          .load();
  const OperatorsResult r = run(trace);
  EXPECT_EQ(r.merged_single_children, 0);
  EXPECT_EQ(row(r, "f")->calls, 2);
  EXPECT_EQ(row(r, "f")->total_cpu_ns, 130'000);
  EXPECT_EQ(row(r, "f")->self_cpu_ns, 20'000 + 30'000);
  EXPECT_EQ(row(r, "g")->self_cpu_ns, 40'000);
  EXPECT_EQ(row(r, "r")->calls, 3);
  EXPECT_EQ(row(r, "r")->self_cpu_ns, 80'000 + 10'000 + 10'000);
}

TEST(Operators, BackwardOpsNestUnderTheirAutogradThreadRoot) {
  const Trace trace = TraceFixture()
                          .op("aten::forward_op", 0, 200, 1)
                          .op("autograd::engine::evaluate_function: MmBackward0", 50, 100, 2)
                          .op("MmBackward0", 55, 90, 2)
                          .op("aten::mm", 60, 80, 2)
                          .runtime("cudaLaunchKernel", 70, 5, 9, 2)
                          .kernel("gemm", 80, 20, 9)
                          .load();
  const OperatorsResult r = run(trace);
  EXPECT_EQ(row(r, "aten::forward_op")->self_cpu_ns, 200'000);  // other threads are no children
  const OperatorRow* root = row(r, "autograd::engine::evaluate_function: MmBackward0");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->self_cpu_ns, 10'000);
  EXPECT_EQ(root->total_device_ns, 20'000);
  EXPECT_EQ(root->self_device_ns, 0);
  EXPECT_EQ(row(r, "MmBackward0")->total_device_ns, 20'000);
  EXPECT_EQ(row(r, "aten::mm")->self_device_ns, 20'000);
  EXPECT_EQ(row(r, "aten::mm")->self_cpu_ns, 75'000);
  EXPECT_EQ(r.attributed_through_launch_call, 1);
}

TEST(Operators, OpsCountInTheStepWindowWhereTheyStart) {
  const Trace trace = TraceFixture()
                          .op("before", 0, 50)
                          .runtime("cudaLaunchKernel", 10, 5, 20)
                          .kernel("early", 60, 10, 20)
                          .step(1, 100, 100)
                          .op("inside", 110, 20)
                          .runtime("cudaLaunchKernel", 112, 2, 21)
                          .kernel("work", 150, 10, 21)
                          .kernel("orphan_in", 120, 5, 22)
                          .kernel("orphan_out", 300, 5, 23)
                          .load();
  const OperatorsResult r = run(trace);
  ASSERT_TRUE(r.scope.has_value());
  EXPECT_EQ(r.scope->start, 100'000);
  EXPECT_EQ(row(r, "before"), nullptr);
  EXPECT_EQ(r.ops_outside_scope, 2);  // "before" and its launch call
  EXPECT_EQ(row(r, "inside")->self_device_ns, 10'000);
  EXPECT_NE(row(r, "ProfilerStep#1"), nullptr);
  EXPECT_EQ(row(r, "ProfilerStep#1")->total_device_ns, 10'000);
  EXPECT_EQ(r.unattributed_device_ns, 5'000);  // orphan_in only
  EXPECT_EQ(r.device_total_ns, 15'000);
  EXPECT_EQ(device_row(r, "early"), nullptr);
  EXPECT_EQ(device_row(r, "orphan_out"), nullptr);
}

TEST(Operators, DeviceRowsByNameSumToTheDeviceTotal) {
  const Trace trace = TraceFixture()
                          .op("aten::add", 0, 100, 1, 1)
                          .runtime("cudaLaunchKernel", 10, 2, 11, 1, 1)
                          .kernel("add_kernel", 20, 4, 11, 7, 0, 1)
                          .runtime("cudaLaunchKernel", 30, 2, 12, 1, 1)
                          .kernel("add_kernel", 40, 8, 12, 7, 0, 1)
                          .runtime("cudaMemsetAsync", 50, 2, 13, 1, 1)
                          .memset(60, 2, 13)
                          .load();
  const OperatorsResult r = run(trace);
  ASSERT_EQ(r.device_rows.size(), 2U);
  const DeviceActivityRow& add = r.device_rows.front();
  EXPECT_EQ(add.name, "add_kernel");
  EXPECT_EQ(add.count, 2);
  EXPECT_EQ(add.device_ns, 12'000);
  EXPECT_EQ(add.avg_device_ns, 6'000);
  EXPECT_EQ(add.min_device_ns, 4'000);
  EXPECT_EQ(add.max_device_ns, 8'000);
  EXPECT_DOUBLE_EQ(add.device_share, 12.0 / 14.0);
  EXPECT_EQ(r.device_rows.back().event_class, EventClass::kMemset);
  EXPECT_EQ(r.device_total_ns, 14'000);
  EXPECT_EQ(row(r, "aten::add")->device_activities, 3);
}

TEST(Operators, RenderedWithUnitsAndPrintableNames) {
  const Trace trace = TraceFixture()
                          .op("aten::mm\\u001b[31m", 0, 50, 1, 500)
                          .runtime("cudaLaunchKernel", 10, 5, 77, 1, 77)
                          .kernel("gemm", 20, 20, 77, 7, 0, 77)
                          .kernel("ncclKernel_AllReduce", 60, 30, 78, 9, 0, 78)
                          .load();
  const OperatorsResult r = run(trace);
  render::JsonWriter json;
  render::write_json(json, r);
  EXPECT_NE(json.text().find(R"("attributed_device_share":0.4)"), std::string::npos) << json.text();
  EXPECT_NE(json.text().find(R"("self_device_us":30)"), std::string::npos);
  EXPECT_NE(json.text().find(R"("class":"unattributed")"), std::string::npos);
  const std::string rendered = render::render_text(r, 10);
  EXPECT_EQ(rendered.find('\x1b'), std::string::npos);  // no terminal escape gets through
  EXPECT_NE(rendered.find("[unattributed]"), std::string::npos);
  EXPECT_NE(rendered.find("40.0 %"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("20.0 µs"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
