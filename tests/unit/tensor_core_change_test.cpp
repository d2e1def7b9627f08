#include "analysis/tensor_core_change.h"

#include <gtest/gtest.h>

#include <string>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/analysis/what_if.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// A100 SXM4 80GB in the peak table: 312 / 19.5 = 16x, 2039 GB/s.
constexpr double kA100Speedup = 312.0 / 19.5;
constexpr double kA100BytesPerNs = 2039.0;
const std::string kLinearShapes =
    R"("Input Dims": [[64, 1024], [1024, 1024], [1024]], "Input type": ["float", "float", "float"])";

void add_device(TraceFixture& fixture, const std::string& name) {
  fixture.top_level(
      "deviceProperties",
      R"([{"id":0,"name":")" + name + R"(","computeMajor":8,"computeMinor":0,"numSms":108}])");
}

// Two steps of 100 µs on the host, 1000 µs apart; each runs `op` (with `args`) around a launch
// of a 900 µs `kernel`, which ends the run: the steps are GPU-bound.
Trace kernel_bound_steps(const std::string& device, const std::string& kernel,
                         const std::string& args, bool backward = false) {
  TraceFixture fixture;
  add_device(fixture, device);
  for (int s = 0; s < 2; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 100);
    if (backward) fixture.op("autograd::engine::evaluate_function: AddmmBackward0", t0 + 0.5, 20);
    fixture.op("aten::linear", t0 + 1, 10, 1, 100 + s, args);
    fixture.runtime("cudaLaunchKernel", t0 + 2, 5, 50 + s, 1, 100 + s);
    fixture.kernel(kernel, t0 + 10, 900, 50 + s, 7, 0, 100 + s);
  }
  return fixture.load();
}

EventIndex first_kernel(const Trace& trace) {
  for (const EventIndex i : trace.events.device_activities) {
    if (trace.events.event_class[i] == EventClass::kKernel) return i;
  }
  return kNoEvent;
}

TEST(TensorCoreChange, Fp32MatmulKernelNames) {
  EXPECT_TRUE(is_fp32_matmul_kernel("ampere_sgemm_128x64_tn"));
  EXPECT_TRUE(is_fp32_matmul_kernel("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4>"));
  EXPECT_TRUE(
      is_fp32_matmul_kernel("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_ffma"));
  EXPECT_FALSE(is_fp32_matmul_kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NTT"));
  EXPECT_FALSE(is_fp32_matmul_kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128"));
  EXPECT_FALSE(is_fp32_matmul_kernel("void at::native::vectorized_elementwise_kernel<4>"));
}

TEST(TensorCoreChange, SpeedupIsTheDevicesHalfOverSinglePeak) {
  ASSERT_TRUE(tensor_core_speedup("NVIDIA H100 80GB HBM3").has_value());
  EXPECT_NEAR(*tensor_core_speedup("NVIDIA H100 80GB HBM3"), 989.4 / 66.9, 1e-9);
  EXPECT_FALSE(tensor_core_speedup("Some Future GPU").has_value());
}

TEST(TensorCoreChange, ForwardMatmulIsFasterAndPaysForItsWeightCasts) {
  const Trace trace =
      kernel_bound_steps("NVIDIA A100-SXM4-80GB", "ampere_sgemm_128x64_tn", kLinearShapes);
  TensorCoreChange change(trace);
  const EventIndex kernel = first_kernel(trace);
  ASSERT_NE(kernel, kNoEvent);
  // Compute: 900 µs / 16. The weight and bias (1024 x 1024 + 1024 elements) are cast at 12 B
  // per element at 2039 GB/s; the memory floor (1,180,672 elements at 2 B) is below the compute.
  const double casts_ns = (1024.0 * 1024 + 1024) * 12 / kA100BytesPerNs;
  const double expected = 900'000 / kA100Speedup + casts_ns;
  EXPECT_NEAR(static_cast<double>(change.duration(kernel, 900'000)), expected, 1.0);
}

TEST(TensorCoreChange, TheMemoryFloorHoldsForSmallMatmuls) {
  const Trace trace =
      kernel_bound_steps("NVIDIA A100-SXM4-80GB", "ampere_sgemm_128x64_tn", kLinearShapes);
  TensorCoreChange change(trace);
  // A 1 µs kernel cannot beat its operands at half the bytes: 1,180,672 x 2 B at 2039 GB/s.
  const double floor_ns = 1'180'672.0 * 2 / kA100BytesPerNs;
  const double casts_ns = (1024.0 * 1024 + 1024) * 12 / kA100BytesPerNs;
  EXPECT_NEAR(static_cast<double>(change.duration(first_kernel(trace), 1'000)), floor_ns + casts_ns,
              1.0);
}

TEST(TensorCoreChange, BackwardMatmulsCastNothing) {
  const Trace trace = kernel_bound_steps("NVIDIA A100-SXM4-80GB", "ampere_sgemm_128x64_tn",
                                         kLinearShapes, /*backward=*/true);
  TensorCoreChange change(trace);
  EXPECT_NEAR(static_cast<double>(change.duration(first_kernel(trace), 900'000)),
              900'000 / kA100Speedup, 1.0);
}

TEST(TensorCoreChange, OtherKernelsAndUnknownDevices) {
  const Trace on_tensor_cores =
      kernel_bound_steps("NVIDIA A100-SXM4-80GB", "ampere_bf16_s16816gemm_bf16_128x128", "");
  TensorCoreChange unchanged(on_tensor_cores);
  EXPECT_EQ(unchanged.duration(first_kernel(on_tensor_cores), 900'000), 900'000);
  const Trace unknown = kernel_bound_steps("Some Future GPU", "ampere_sgemm_128x64_tn", "");
  TensorCoreChange guessed(unknown);
  EXPECT_EQ(guessed.duration(first_kernel(unknown), 900'000),
            static_cast<std::int64_t>(900'000 / kUnknownDeviceTensorCoreSpeedup));
}

TEST(TensorCoreChange, TheReplayShortensGpuBoundSteps) {
  const Trace trace =
      kernel_bound_steps("NVIDIA A100-SXM4-80GB", "ampere_sgemm_128x64_tn", kLinearShapes);
  const RankAnalyses rank = analyze_rank(trace, AnalysisOptions{});
  WhatIfChange change;
  change.tensor_cores = true;
  const WhatIfResult result = what_if(trace, rank.step_models, change, 10);
  // The run ended with the second kernel at 1910 µs; on tensor cores it ends at 1010 µs + 62 µs,
  // before the host's second step does at 1100 µs, which now ends the run: 810 µs over 2 steps.
  EXPECT_DOUBLE_EQ(result.saving_ns(), 405'000);
  EXPECT_DOUBLE_EQ(result.after.modelled_step_ns, 1'100'000 / 2.0);
  EXPECT_NE(result.change.find("tensor cores"), std::string::npos);
}

TEST(TensorCoreChange, KernelGroupsParseAndApply) {
  const Result<KernelSpeedup> matmul = parse_kernel_speedup("fp32-matmul=4x");
  ASSERT_TRUE(matmul.ok());
  EXPECT_EQ(matmul->group, KernelGroup::kFp32Matmul);
  EXPECT_DOUBLE_EQ(matmul->factor, 4.0);
  EXPECT_TRUE(parse_kernel_speedup("communication=2").ok());
  EXPECT_FALSE(parse_kernel_speedup("attention=2x").ok());
  EXPECT_FALSE(parse_kernel_speedup("communication=-1x").ok());

  const Trace trace = kernel_bound_steps("NVIDIA A100-SXM4-80GB", "ampere_sgemm_128x64_tn", "");
  const RankAnalyses rank = analyze_rank(trace, AnalysisOptions{});
  WhatIfChange change;
  change.kernels.push_back(*matmul);
  EXPECT_NEAR(what_if(trace, rank.step_models, change, 10).saving_ns(), 675'000 / 2.0, 1.0);
  change.kernels.front() = {KernelGroup::kCommunication, 4.0};  // no collective in these steps
  EXPECT_DOUBLE_EQ(what_if(trace, rank.step_models, change, 10).saving_ns(), 0);
}

}  // namespace
}  // namespace stepscope
