// Step-time breakdown (docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9) on small traces
// with exact expectations.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "render/json/json_sink.h"
#include "render/terminal/step_breakdown_text.h"
#include "stepscope/analysis/step_breakdown.h"
#include "stepscope/figures/step_breakdown_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

constexpr std::int64_t kUs = 1000;

StepBreakdownResult run(const Trace& trace, Mode mode) {
  AnalysisOptions options;
  options.mode = mode;
  return compute_step_breakdown(trace, find_steps(trace, options), options);
}

bool has_quirk(const StepBreakdownResult& result, const std::string& quirk) {
  return std::find(result.quirks.begin(), result.quirks.end(), quirk) != result.quirks.end();
}

// Two steps [0,100) and [100,200) µs, each launching one kernel inside its host span.
testing::TraceFixture two_steps() {
  testing::TraceFixture f;
  f.step(1, 0, 100).step(2, 100, 100);
  f.runtime("cudaLaunchKernel", 10, 5, 1).kernel("gemm", 20, 30, 1);
  f.runtime("cudaLaunchKernel", 110, 5, 2).kernel("gemm", 150, 10, 2);
  return f;
}

TEST(StepBreakdown, PrioritySubtractionGivesEachNanosecondOneRole) {
  testing::TraceFixture f = two_steps();
  f.op("aten::mm", 5, 35);  // [5,40): kernel [20,40) and runtime [10,15) take priority
  const StepBreakdownResult result = run(f.load(), Mode::kNative);
  ASSERT_TRUE(result.applicable);
  ASSERT_EQ(result.steps.size(), 2U);
  const RoleTimes& first = result.steps[0].roles;
  EXPECT_EQ(first[StepRole::kKernel], 30 * kUs);
  EXPECT_EQ(first[StepRole::kRuntime], 5 * kUs);
  EXPECT_EQ(first[StepRole::kCpuExec], 10 * kUs);
  EXPECT_EQ(first[StepRole::kOther], 55 * kUs);
  EXPECT_EQ(first.total_ns, 100 * kUs);
  EXPECT_EQ(first.roles_sum_ns(), first.total_ns);
  EXPECT_EQ(result.mean[StepRole::kKernel], 20 * kUs);  // (30 + 10) / 2
  EXPECT_EQ(result.mean[StepRole::kOther], 70 * kUs);   // (55 + 85) / 2
  EXPECT_EQ(result.sum.total_ns, 200 * kUs);
}

TEST(StepBreakdown, OverlappingDeviceRolesGoToTheEarlierRole) {
  testing::TraceFixture f = two_steps();
  f.runtime("cudaMemcpyAsync", 12, 1, 3).memcpy("Memcpy HtoD", 40, 20, 3);  // [40,60)
  f.runtime("cudaMemsetAsync", 13, 1, 4).memset(55, 10, 4);                 // [55,65)
  const StepBreakdownResult result = run(f.load(), Mode::kNative);
  ASSERT_TRUE(result.applicable);
  const RoleTimes& first = result.steps[0].roles;
  EXPECT_EQ(first[StepRole::kKernel], 30 * kUs);  // [20,50)
  EXPECT_EQ(first[StepRole::kMemcpy], 10 * kUs);  // [50,60)
  EXPECT_EQ(first[StepRole::kMemset], 5 * kUs);   // [60,65)
  EXPECT_EQ(first.roles_sum_ns(), first.total_ns);
}

TEST(StepBreakdown, NativeSplitsRuntimeIntoSyncAndLaunch) {
  testing::TraceFixture f = two_steps();
  f.runtime("cudaStreamSynchronize", 60, 20, 9);
  f.runtime("cudaMemcpy", 85, 4, 10);  // synchronous copy: a blocking call
  const StepBreakdownResult result = run(f.load(), Mode::kNative);
  const RoleTimes& first = result.steps[0].roles;
  EXPECT_EQ(first[StepRole::kRuntime], 29 * kUs);
  EXPECT_EQ(first.runtime_sync_ns, 24 * kUs);
  EXPECT_EQ(first.runtime_launch_ns, 5 * kUs);
}

TEST(StepBreakdown, NativeFindsCommunicationByKernelNameAndLaunchingOp) {
  testing::TraceFixture f = two_steps();
  f.runtime("cudaLaunchKernel", 60, 2, 5).kernel("ncclDevKernel_AllReduce_Sum_f32", 60, 10, 5);
  f.op("record_param_comms", 70, 10, 1, 77);
  f.runtime("cudaLaunchKernel", 71, 2, 6, 1, 77).kernel("copy_kernel", 75, 5, 6, 7, 0, 77);
  const StepBreakdownResult native = run(f.load(), Mode::kNative);
  EXPECT_EQ(native.steps[0].roles[StepRole::kCommunication], 15 * kUs);
  const StepBreakdownResult tb = run(f.load(), Mode::kCompatTb);
  // tb_plugin: no nccl:* op with the kernels' External id, so everything is Kernel.
  EXPECT_EQ(tb.steps[0].roles[StepRole::kCommunication], 0);
  EXPECT_EQ(tb.steps[0].roles[StepRole::kKernel], 45 * kUs);
  EXPECT_TRUE(has_quirk(tb, "communication_kernels_in_kernel_role"));
}

TEST(StepBreakdown, CompatTbAttributesKernelsByCommunicationOpExternalId) {
  testing::TraceFixture f = two_steps();
  f.annotation("nccl:all_reduce", 60, 20, 1, 42);
  f.runtime("cudaLaunchKernel", 61, 2, 7, 1, 42).kernel("ncclKernel", 70, 20, 7, 7, 0, 42);
  const StepBreakdownResult tb = run(f.load(), Mode::kCompatTb);
  // Kernel [70,90) and the host span [60,80) are both Communication, which outranks the
  // launch call [61,63).
  EXPECT_EQ(tb.steps[0].roles[StepRole::kCommunication], 30 * kUs);
  const StepBreakdownResult native = run(f.load(), Mode::kNative);
  // Native: the same kernel is Communication; the host span is CPU Exec where neither the
  // kernel nor the launch call took it: [60,61) and [63,70).
  EXPECT_EQ(native.steps[0].roles[StepRole::kCommunication], 20 * kUs);
  EXPECT_EQ(native.steps[0].roles[StepRole::kCpuExec], 8 * kUs);
}

TEST(StepBreakdown, CompatTbReproducesFreeTimeRestart) {
  testing::TraceFixture f;
  f.step(1, 0, 100).step(2, 100, 100);
  // Kernels cover both steps completely, so nothing is free after the Kernel role.
  f.runtime("cudaLaunchKernel", 10, 5, 1).kernel("k", 0, 100, 1);
  f.runtime("cudaLaunchKernel", 110, 5, 2).kernel("k", 100, 100, 2);
  f.runtime("cudaMemcpyAsync", 20, 1, 3).memcpy("Memcpy DtoD", 30, 10, 3);
  const StepBreakdownResult tb = run(f.load(), Mode::kCompatTb);
  ASSERT_TRUE(tb.applicable);
  EXPECT_EQ(tb.steps[0].roles[StepRole::kKernel], 100 * kUs);
  EXPECT_EQ(tb.steps[0].roles[StepRole::kMemcpy], 10 * kUs);  // taken whole
  EXPECT_GT(tb.steps[0].roles.roles_sum_ns(), tb.steps[0].roles.total_ns);
  EXPECT_TRUE(has_quirk(tb, "free_time_restarts_after_a_role_fills_the_steps"));
  const StepBreakdownResult native = run(f.load(), Mode::kNative);
  EXPECT_EQ(native.steps[0].roles[StepRole::kMemcpy], 0);
  EXPECT_EQ(native.steps[0].roles.roles_sum_ns(), native.steps[0].roles.total_ns);
}

TEST(StepBreakdown, GpuAnnotationsAndDriverCallsDifferByMode) {
  testing::TraceFixture f = two_steps();
  f.gpu_annotation("forward", 55, 10);
  f.driver("cuLaunchKernel", 70, 4, 8);
  const StepBreakdownResult tb = run(f.load(), Mode::kCompatTb);
  EXPECT_EQ(tb.steps[0].roles[StepRole::kCpuExec], 10 * kUs);
  EXPECT_EQ(tb.steps[0].roles[StepRole::kRuntime], 5 * kUs);
  EXPECT_TRUE(has_quirk(tb, "gpu_user_annotation_as_cpu_exec"));
  EXPECT_TRUE(has_quirk(tb, "cuda_driver_calls_ignored"));
  const StepBreakdownResult native = run(f.load(), Mode::kNative);
  EXPECT_EQ(native.steps[0].roles[StepRole::kCpuExec], 0);
  EXPECT_EQ(native.steps[0].roles[StepRole::kRuntime], 9 * kUs);
  EXPECT_TRUE(native.quirks.empty());
}

TEST(StepBreakdown, DataLoaderRole) {
  testing::TraceFixture f = two_steps();
  f.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 60, 30);
  f.op("aten::copy_", 65, 5);  // nested in the DataLoader span: DataLoader has priority
  const StepBreakdownResult result = run(f.load(), Mode::kNative);
  EXPECT_EQ(result.steps[0].roles[StepRole::kDataLoader], 30 * kUs);
  EXPECT_EQ(result.steps[0].roles[StepRole::kCpuExec], 0);
}

TEST(StepBreakdown, NoStepsIsNotApplicable) {
  testing::TraceFixture f;
  f.runtime("cudaLaunchKernel", 10, 5, 1).kernel("gemm", 20, 30, 1);
  const StepBreakdownResult native = run(f.load(), Mode::kNative);
  EXPECT_FALSE(native.applicable);
  EXPECT_EQ(native.not_applicable_reason, "no kept steps");
  EXPECT_TRUE(native.steps.empty());
  // compat-tb makes tb_plugin's single step `0`... over host ops, of which there are none.
  EXPECT_FALSE(run(f.load(), Mode::kCompatTb).applicable);
}

TEST(StepBreakdown, CpuOnlyTraceHasHostRolesOnly) {
  testing::TraceFixture f;
  f.step(1, 0, 100).op("aten::add", 10, 20).op("aten::mul", 50, 10);
  const StepBreakdownResult result = run(f.load(), Mode::kNative);
  ASSERT_TRUE(result.applicable);
  const RoleTimes& step = result.steps[0].roles;
  EXPECT_EQ(step[StepRole::kCpuExec], 30 * kUs);
  EXPECT_EQ(step[StepRole::kKernel], 0);
  EXPECT_EQ(step[StepRole::kOther], 70 * kUs);
}

TEST(StepBreakdown, JsonWritesMicrosecondsSharesAndQuirks) {
  testing::TraceFixture f = two_steps();
  f.gpu_annotation("forward", 55, 10);
  render::JsonWriter json;
  render::write_json(json, run(f.load(), Mode::kCompatTb));
  const std::string& text = json.text();
  EXPECT_NE(text.find("\"mode\":\"compat-tb\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"kernel_us\":20"), std::string::npos) << text;
  EXPECT_NE(text.find("\"quirks\":[\"gpu_user_annotation_as_cpu_exec\"]"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("runtime_sync_us"), std::string::npos);  // native only
}

TEST(StepBreakdown, TextShowsUnitsAndNotApplicable) {
  const std::string text = render::render_text(run(two_steps().load(), Mode::kNative), 5);
  EXPECT_NE(text.find("kernel"), std::string::npos);
  EXPECT_NE(text.find("20.0 µs"), std::string::npos) << text;
  EXPECT_NE(text.find('%'), std::string::npos);
  StepBreakdownResult empty;
  empty.not_applicable_reason = "no kept steps";
  EXPECT_NE(render::render_text(empty, 5).find("not applicable: no kept steps"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
