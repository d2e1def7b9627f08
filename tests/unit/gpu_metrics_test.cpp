// GPU summary metrics (docs/metrics/10-tb-plugin-gpu-summary-metrics.md §10) on small traces with
// exact expectations.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/tensor_core_names.h"
#include "render/json/json_sink.h"
#include "render/terminal/gpu_metrics_text.h"
#include "stepscope/analysis/gpu_metrics.h"
#include "stepscope/figures/gpu_metrics_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

constexpr std::int64_t kUs = 1000;

GpuMetricsResult run(const Trace& trace, Mode mode) {
  AnalysisOptions options;
  options.mode = mode;
  return compute_gpu_metrics(trace, find_steps(trace, options), options);
}

std::string kernel_args(double blocks_per_sm, double occupancy) {
  return "\"blocks per SM\":" + std::to_string(blocks_per_sm) +
         ",\"est. achieved occupancy %\":" + std::to_string(occupancy);
}

// Steps [0,100) and [100,200) µs. Kernels on device 0: [20,50) h884 (0.5 blocks/SM, 40 %),
// [40,60) flash on another stream (0.75, 60 %), [150,160) elementwise (2.0, 20 %); a memcpy
// [170,180) (two device activities per step, so neither step is trimmed). Only the first kernel is
// attributed to an op through its External id.
testing::TraceFixture fixture() {
  testing::TraceFixture f;
  f.step(1, 0, 100).step(2, 100, 100);
  f.op("aten::mm", 10, 8, 1, 5).runtime("cudaLaunchKernel", 12, 5, 1, 1, 5);
  f.kernel("volta_h884gemm_64x64", 20, 30, 1, 7, 0, 5, kernel_args(0.5, 40));
  f.runtime("cudaLaunchKernel", 30, 2, 2)
      .kernel("flash_fwd_kernel", 40, 20, 2, 8, 0, -1, kernel_args(0.75, 60));
  f.runtime("cudaLaunchKernel", 110, 5, 3)
      .kernel("elementwise_kernel", 150, 10, 3, 7, 0, -1, kernel_args(2.0, 20));
  f.runtime("cudaMemcpyAsync", 120, 2, 4).memcpy("Memcpy DtoH", 170, 10, 4);
  return f;
}

TEST(GpuMetrics, NativeFiguresOverTheWindow) {
  const GpuMetricsResult result = run(fixture().load(), Mode::kNative);
  ASSERT_TRUE(result.applicable);
  ASSERT_EQ(result.devices.size(), 1U);
  const GpuDeviceMetrics& gpu = result.devices.front();
  EXPECT_EQ(gpu.window_ns, 200 * kUs);
  EXPECT_EQ(gpu.kernels, 3);
  EXPECT_EQ(gpu.kernel_busy_ns, 50 * kUs);  // [20,60) + [150,160)
  EXPECT_DOUBLE_EQ(gpu.utilization, 0.25);
  EXPECT_EQ(gpu.busy_with_memory_ns, 60 * kUs);
  ASSERT_TRUE(gpu.utilization_with_memory.has_value());
  EXPECT_DOUBLE_EQ(*gpu.utilization_with_memory, 0.3);
  // 0.5×20 + min(1.25, 1)×10 + 0.75×10 + min(2, 1)×10 = 37.5 µs of 200.
  ASSERT_TRUE(gpu.sm_efficiency.has_value());
  EXPECT_NEAR(*gpu.sm_efficiency, 0.1875, 1e-12);
  // (40×30 + 60×20 + 20×10) / 60 %.
  ASSERT_TRUE(gpu.achieved_occupancy.has_value());
  EXPECT_NEAR(*gpu.achieved_occupancy, 2600.0 / 60.0 / 100.0, 1e-12);
  EXPECT_EQ(gpu.kernels_with_blocks_per_sm, 3);
  EXPECT_EQ(gpu.kernels_with_occupancy, 3);
}

TEST(GpuMetrics, NativeTensorCoresReportWhichRuleMatched) {
  const GpuMetricsResult result = run(fixture().load(), Mode::kNative);
  const GpuDeviceMetrics& gpu = result.devices.front();
  EXPECT_TRUE(result.tensor_core_heuristic);
  EXPECT_EQ(gpu.tensor_core_kernel_ns, 50 * kUs);
  EXPECT_EQ(gpu.tensor_core_base_kernel_ns, 60 * kUs);
  ASSERT_TRUE(gpu.tensor_core_share.has_value());
  EXPECT_NEAR(*gpu.tensor_core_share, 50.0 / 60.0, 1e-12);
  ASSERT_EQ(gpu.tensor_core_rules.size(), 2U);
  EXPECT_EQ(gpu.tensor_core_rules[0].pattern, "h884");
  EXPECT_FALSE(gpu.tensor_core_rules[0].extended);
  EXPECT_EQ(gpu.tensor_core_rules[1].pattern, "flash");
  EXPECT_TRUE(gpu.tensor_core_rules[1].extended);
  EXPECT_EQ(gpu.tensor_core_rules[1].kernel_ns, 20 * kUs);
}

TEST(GpuMetrics, CompatTbTensorCoresOverOpAttributedKernelsOnly) {
  const GpuMetricsResult result = run(fixture().load(), Mode::kCompatTb);
  ASSERT_TRUE(result.applicable);
  const GpuDeviceMetrics& gpu = result.devices.front();
  EXPECT_FALSE(result.tensor_core_heuristic);
  EXPECT_DOUBLE_EQ(gpu.utilization, 0.25);
  EXPECT_FALSE(gpu.utilization_with_memory.has_value());
  // Only the h884 kernel is attributed (aten::mm's External id) and it is on the tb list.
  EXPECT_EQ(gpu.tensor_core_base_kernel_ns, 30 * kUs);
  ASSERT_TRUE(gpu.tensor_core_share.has_value());
  EXPECT_DOUBLE_EQ(*gpu.tensor_core_share, 1.0);
  // Over all kernels, the tb list finds only h884: 30 of 60 µs ("flash" is not on it).
  ASSERT_TRUE(result.tensor_core_share_all_kernels.has_value());
  EXPECT_DOUBLE_EQ(*result.tensor_core_share_all_kernels, 0.5);
  EXPECT_NE(std::find(result.quirks.begin(), result.quirks.end(),
                      "tensor_core_share_skips_kernels_without_op"),
            result.quirks.end());
}

TEST(GpuMetrics, CompatTbHasNoTensorCoreShareWhenNoKernelHasAnOp) {
  testing::TraceFixture f;
  f.step(1, 0, 100).launched_kernel("volta_h884gemm", 10, 20, 30);
  const GpuMetricsResult result = run(f.load(), Mode::kCompatTb);
  ASSERT_TRUE(result.applicable);
  EXPECT_FALSE(result.devices.front().tensor_core_share.has_value());
  EXPECT_DOUBLE_EQ(result.tensor_core_share_all_kernels.value_or(-1), 1.0);
}

TEST(GpuMetrics, KernelsWithoutBlocksPerSmLeaveSmEfficiencyAbsent) {
  testing::TraceFixture f;
  f.step(1, 0, 100).launched_kernel("k", 10, 20, 30);
  const GpuMetricsResult result = run(f.load(), Mode::kNative);
  ASSERT_TRUE(result.applicable);
  EXPECT_FALSE(result.devices.front().sm_efficiency.has_value());
  EXPECT_FALSE(result.devices.front().achieved_occupancy.has_value());
  EXPECT_NEAR(result.devices.front().utilization, 0.3, 1e-12);
}

TEST(GpuMetrics, WithoutStepsTheWindowIsTheGpuSpan) {
  testing::TraceFixture f;
  f.launched_kernel("k", 0, 20, 30).launched_kernel("k", 40, 70, 30);
  const GpuMetricsResult native = run(f.load(), Mode::kNative);
  ASSERT_TRUE(native.applicable);
  EXPECT_EQ(native.window->length(), 80 * kUs);
  EXPECT_DOUBLE_EQ(native.devices.front().utilization, 0.75);
}

TEST(GpuMetrics, CpuOnlyTraceIsNotApplicable) {
  testing::TraceFixture f;
  f.step(1, 0, 100).op("aten::add", 10, 20);
  for (Mode mode : {Mode::kNative, Mode::kCompatTb}) {
    const GpuMetricsResult result = run(f.load(), mode);
    EXPECT_FALSE(result.applicable);
    EXPECT_EQ(result.not_applicable_reason, "no GPU activity");
    EXPECT_TRUE(result.devices.empty());
  }
}

TEST(GpuMetrics, DevicesAreReportedSeparately) {
  testing::TraceFixture f;
  f.step(1, 0, 100);
  f.runtime("cudaLaunchKernel", 10, 5, 1).kernel("k", 20, 10, 1, 7, 0);
  f.runtime("cudaLaunchKernel", 16, 5, 2).kernel("k", 20, 40, 2, 7, 1);
  const GpuMetricsResult result = run(f.load(), Mode::kNative);
  ASSERT_EQ(result.devices.size(), 2U);
  EXPECT_EQ(result.devices[0].device, 0);
  EXPECT_EQ(result.devices[0].kernel_busy_ns, 10 * kUs);
  EXPECT_EQ(result.devices[1].device, 1);
  EXPECT_EQ(result.devices[1].kernel_busy_ns, 40 * kUs);
}

TEST(TensorCoreNames, TbListIsCaseSensitiveExtensionIsNot) {
  EXPECT_TRUE(match_tb_tensor_core("ampere_fp16_s16816gemm_fp16_128x128").has_value());
  EXPECT_FALSE(match_tb_tensor_core("nvjet_tst_192x192_64x3").has_value());
  const auto hopper = match_tensor_core("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize");
  ASSERT_TRUE(hopper.has_value());
  EXPECT_FALSE(hopper->extended);  // "xmma_gemm" is on tb_plugin's list
  const auto wgmma = match_tensor_core("cutlass3x_sm90_WGMMA_kernel");
  ASSERT_TRUE(wgmma.has_value());
  EXPECT_EQ(wgmma->pattern, "wgmma");
  EXPECT_FALSE(match_tensor_core("vectorized_elementwise_kernel").has_value());
}

TEST(GpuMetrics, JsonAndTextCarryUnitsAndNulls) {
  render::JsonWriter json;
  render::write_json(json, run(fixture().load(), Mode::kCompatTb));
  const std::string& text = json.text();
  EXPECT_NE(text.find("\"utilization\":0.25"), std::string::npos) << text;
  EXPECT_NE(text.find("\"kernel_busy_us\":50"), std::string::npos) << text;
  EXPECT_NE(text.find("\"list\":\"tb_plugin\""), std::string::npos) << text;
  EXPECT_EQ(text.find("utilization_with_memory"), std::string::npos);
  const std::string rendered = render::render_text(run(fixture().load(), Mode::kNative), 5);
  EXPECT_NE(rendered.find("25.0 %"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("extended (heuristic)"), std::string::npos) << rendered;
  GpuMetricsResult empty;
  empty.not_applicable_reason = "no GPU activity";
  EXPECT_NE(render::render_text(empty, 5).find("not applicable: no GPU activity"),
            std::string::npos);
}

}  // namespace
}  // namespace stepscope
