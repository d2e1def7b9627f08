// FLOPs from shapes match the formulas exactly, outermost ops count once, and MFU is the
// achieved rate over the datasheet peak of the trace's device; bytes and intensity match their
// formulas, and the ridge point splits memory-bound from compute-bound ops.
#include "stepscope/analysis/compute_efficiency.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/rank_analyses.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;
using Shapes = std::vector<std::vector<std::int64_t>>;

TEST(ComputeEfficiency, MatrixMultiplyFlopsAreTwoMKN) {
  EXPECT_EQ(op_flops("aten::mm", Shapes{{64, 128}, {128, 32}}, {}), 2.0 * 64 * 128 * 32);
  EXPECT_EQ(op_flops("aten::addmm", Shapes{{32}, {64, 128}, {128, 32}}, {}), 2.0 * 64 * 128 * 32);
  EXPECT_EQ(op_flops("aten::bmm", Shapes{{4, 8, 16}, {4, 16, 2}}, {}), 2.0 * 4 * 8 * 16 * 2);
  // linear: input [B, T, in], weight [out, in]
  EXPECT_EQ(op_flops("aten::linear", Shapes{{2, 10, 64}, {256, 64}, {256}}, {}),
            2.0 * 2 * 10 * 64 * 256);
  EXPECT_FALSE(op_flops("aten::mm", Shapes{{64, 128}, {64, 32}}, {}).has_value());  // K differ
  EXPECT_FALSE(op_flops("aten::relu", Shapes{{64, 128}}, {}).has_value());
}

TEST(ComputeEfficiency, ConvolutionFlopsFollowTheOutputSize) {
  // conv2d(input [2, 4, 17, 17], weight [8, 2, 3, 3], stride 2, padding 1, dilation 1, groups 2)
  const std::vector<std::string> concrete{"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "2"};
  const double out = 9.0 * 9.0;  // (17 + 2 - 2 - 1) / 2 + 1 = 9
  EXPECT_EQ(op_flops("aten::conv2d", Shapes{{2, 4, 17, 17}, {8, 2, 3, 3}, {8}}, concrete),
            2.0 * 2 * 8 * out * 2 * 3 * 3);
  const std::vector<std::string> same{"", "", "", "[1, 1]", "same", "[1, 1]", "1"};
  EXPECT_EQ(op_flops("aten::conv2d", Shapes{{1, 3, 8, 8}, {4, 3, 3, 3}}, same),
            2.0 * 1 * 4 * 64 * 3 * 3 * 3);
  // convolution(..., transposed=True, ...) is not counted.
  const std::vector<std::string> transposed{"",       "",     "",       "[1, 1]", "[0, 0]",
                                            "[1, 1]", "True", "[0, 0]", "1"};
  EXPECT_FALSE(
      op_flops("aten::convolution", Shapes{{1, 3, 8, 8}, {3, 4, 3, 3}}, transposed).has_value());
}

TEST(ComputeEfficiency, PeaksComeFromTheDatasheetTable) {
  EXPECT_DOUBLE_EQ(peak_flops("NVIDIA H100 80GB HBM3", "c10::BFloat16").tflops, 989.4);
  EXPECT_DOUBLE_EQ(peak_flops("NVIDIA H100 PCIe", "c10::Half").tflops, 756.0);
  EXPECT_DOUBLE_EQ(peak_flops("NVIDIA A100-SXM4-80GB", "float").tflops, 19.5);
  EXPECT_DOUBLE_EQ(peak_flops("Some Future GPU", "c10::BFloat16").tflops, 0);
  EXPECT_DOUBLE_EQ(peak_flops("NVIDIA H100 80GB HBM3", "long").tflops, 0);
}

// Steps of 1000 µs, each with one aten::linear [64, 1024] x [1024, 1024]^T holding an addmm,
// whose kernel runs 400 µs on an H100.
Trace linear_steps(bool on_gpu) {
  TraceFixture f;
  if (on_gpu) {
    f.top_level("deviceProperties",
                R"([{"id":0,"name":"NVIDIA H100 80GB HBM3","computeMajor":9,"computeMinor":0,)"
                R"("totalGlobalMem":85899345920}])");
  }
  const std::string linear =
      R"("Input Dims": [[64, 1024], [1024, 1024], [1024]], "Input type": ["c10::BFloat16", )"
      R"("c10::BFloat16", "c10::BFloat16"])";
  const std::string addmm =
      R"("Input Dims": [[1024], [64, 1024], [1024, 1024]], "Input type": ["c10::BFloat16", )"
      R"("c10::BFloat16", "c10::BFloat16"])";
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    f.step(s, t0, 1000);
    f.op("aten::linear", t0 + 10, 100, 1, -1, linear);
    f.op("aten::addmm", t0 + 20, 80, 1, -1, addmm);
    if (on_gpu) f.launched_kernel("sm90_xmma_gemm_bf16", t0 + 30, t0 + 40, 400);
  }
  return f.load();
}

TEST(ComputeEfficiency, OuterOpsCountOnceAndMfuIsOverThePeak) {
  const Trace trace = linear_steps(true);
  const RankAnalyses rank = analyze_rank(trace, {});
  const ComputeEfficiencyResult& e = rank.compute_efficiency;
  ASSERT_TRUE(e.applicable) << e.not_applicable_reason;
  const double flops = 2.0 * 64 * 1024 * 1024;
  EXPECT_DOUBLE_EQ(e.flops_per_step, flops);  // the addmm inside the linear is not added
  ASSERT_EQ(e.ops.size(), 1U);
  EXPECT_EQ(e.ops[0].name, "aten::linear");
  EXPECT_EQ(e.ops[0].calls, 3);
  EXPECT_EQ(e.ops[0].time_ns, 3 * 400'000);  // its kernel's device time
  EXPECT_DOUBLE_EQ(e.ops[0].achieved_tflops, flops / 400e3 / 1e3);
  EXPECT_EQ(e.dtype, "c10::BFloat16");
  EXPECT_DOUBLE_EQ(e.peak_tflops, 989.4);
  ASSERT_TRUE(e.mfu.has_value());
  EXPECT_DOUBLE_EQ(*e.mfu, e.achieved_tflops_per_step / 989.4);
  EXPECT_DOUBLE_EQ(e.achieved_tflops_per_step, flops / rank.step_time.duration_ns.mean / 1e3);
}

TEST(ComputeEfficiency, BytesReadEachInputOnceAndWriteTheOutputOnce) {
  // mm [64, 128] x [128, 32]: 64·128 + 128·32 + 64·32 elements of 2 bytes.
  EXPECT_EQ(op_bytes("aten::mm", Shapes{{64, 128}, {128, 32}}, {}, 2),
            2.0 * (64 * 128 + 128 * 32 + 64 * 32));
  // addmm reads its bias too; bmm moves every batch's matrices.
  EXPECT_EQ(op_bytes("aten::addmm", Shapes{{32}, {64, 128}, {128, 32}}, {}, 4),
            4.0 * (32 + 64 * 128 + 128 * 32 + 64 * 32));
  EXPECT_EQ(op_bytes("aten::bmm", Shapes{{4, 8, 16}, {4, 16, 2}}, {}, 2),
            2.0 * (4 * 8 * 16 + 4 * 16 * 2 + 4 * 8 * 2));
  EXPECT_EQ(op_bytes("aten::linear", Shapes{{2, 10, 64}, {256, 64}, {256}}, {}, 2),
            2.0 * (2 * 10 * 64 + 256 * 64 + 256 + 2 * 10 * 256));
  // conv2d [2, 4, 17, 17] * [8, 2, 3, 3] + bias [8], stride 2, padding 1, groups 2: 9x9 output.
  const std::vector<std::string> concrete{"", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "2"};
  EXPECT_EQ(op_bytes("aten::conv2d", Shapes{{2, 4, 17, 17}, {8, 2, 3, 3}, {8}}, concrete, 4),
            4.0 * (2 * 4 * 17 * 17 + 8 * 2 * 3 * 3 + 8 + 2 * 8 * 9 * 9));
  EXPECT_FALSE(op_bytes("aten::mm", Shapes{{64, 128}, {64, 32}}, {}, 2).has_value());
  EXPECT_FALSE(op_bytes("aten::relu", Shapes{{64, 128}}, {}, 2).has_value());
  EXPECT_EQ(dtype_size("c10::BFloat16"), 2.0);
  EXPECT_EQ(dtype_size("float"), 4.0);
  EXPECT_FALSE(dtype_size("long").has_value());
}

TEST(ComputeEfficiency, BandwidthComesFromTheDatasheetTable) {
  EXPECT_DOUBLE_EQ(peak_bandwidth("NVIDIA H100 80GB HBM3").gbps, 3350.0);
  EXPECT_DOUBLE_EQ(peak_bandwidth("NVIDIA A100-SXM4-80GB").gbps, 2039.0);
  EXPECT_DOUBLE_EQ(peak_bandwidth("NVIDIA A100-SXM4-40GB").gbps, 1555.0);
  EXPECT_FALSE(peak_bandwidth("NVIDIA H200").source.empty());
  EXPECT_DOUBLE_EQ(peak_bandwidth("Some Future GPU").gbps, 0);
}

// An H100 bf16 matmul of [4096, K] x [K, 4096]: intensity 2·M·K·N / (2·(M·K + K·N + M·N)),
// against a ridge point of 989.4 TFLOP/s / 3.35 TB/s = 295.3 FLOP/byte.
OpFlops square_matmul(std::int64_t k) {
  const Shapes shapes{{4096, k}, {k, 4096}};
  OpFlops op;
  op.flops = *op_flops("aten::mm", shapes, {});
  op.bytes = *op_bytes("aten::mm", shapes, {}, 2);
  op.intensity = op.flops / op.bytes;
  op.achieved_tflops = 100;
  return op;
}

TEST(ComputeEfficiency, SmallKIsMemoryBoundAndLargeKComputeBoundOnAnH100) {
  const PeakFlops peak = peak_flops("NVIDIA H100 80GB HBM3", "c10::BFloat16");
  const double bandwidth = peak_bandwidth("NVIDIA H100 80GB HBM3").gbps;
  OpFlops thin = square_matmul(64);
  place_on_roofline(thin, peak.tflops, bandwidth);
  const double thin_intensity = 4096.0 * 64 * 4096 / (4096 * 64 * 2 + 4096.0 * 4096);
  EXPECT_DOUBLE_EQ(*thin.intensity, thin_intensity);  // about 62 FLOP/byte
  EXPECT_EQ(thin.bound, "memory_bound");
  ASSERT_TRUE(thin.attainable_tflops.has_value());
  EXPECT_DOUBLE_EQ(*thin.attainable_tflops, thin_intensity * 3350.0 / 1e3);
  EXPECT_DOUBLE_EQ(*thin.attainable_share, 100 / *thin.attainable_tflops);

  OpFlops thick = square_matmul(4096);
  place_on_roofline(thick, peak.tflops, bandwidth);
  EXPECT_DOUBLE_EQ(*thick.intensity, 4096.0 / 3);  // about 1365 FLOP/byte
  EXPECT_EQ(thick.bound, "compute_bound");
  EXPECT_DOUBLE_EQ(*thick.attainable_tflops, 989.4);  // the flat roof
  EXPECT_DOUBLE_EQ(*thick.attainable_share, 100 / 989.4);
}

TEST(ComputeEfficiency, AnalysisPlacesOpsUnderTheDeviceRoof) {
  const Trace trace = linear_steps(true);
  const ComputeEfficiencyResult e = analyze_rank(trace, {}).compute_efficiency;
  ASSERT_TRUE(e.applicable);
  EXPECT_DOUBLE_EQ(e.peak_bandwidth_gbps, 3350.0);
  ASSERT_TRUE(e.ridge_point.has_value());
  EXPECT_DOUBLE_EQ(*e.ridge_point, 989.4 * 1e3 / 3350.0);
  const OpFlops& op = e.ops[0];
  const double bytes = 2.0 * (64 * 1024 + 1024 * 1024 + 1024 + 64 * 1024);  // per call
  EXPECT_DOUBLE_EQ(op.bytes, 3 * bytes);
  ASSERT_TRUE(op.intensity.has_value());
  EXPECT_DOUBLE_EQ(*op.intensity, 2.0 * 64 * 1024 * 1024 / bytes);  // about 62: below 295
  EXPECT_EQ(op.bound, "memory_bound");
  ASSERT_TRUE(op.attainable_share.has_value());
  EXPECT_DOUBLE_EQ(*op.attainable_share, op.achieved_tflops / *op.attainable_tflops);
}

TEST(ComputeEfficiency, CpuTraceHasAnIntensityButNoVerdict) {
  const Trace trace = linear_steps(false);
  const ComputeEfficiencyResult e = analyze_rank(trace, {}).compute_efficiency;
  ASSERT_TRUE(e.applicable);
  ASSERT_TRUE(e.ops[0].intensity.has_value());
  EXPECT_GT(*e.ops[0].intensity, 0);
  EXPECT_EQ(e.ops[0].bound, "unknown");
  EXPECT_FALSE(e.ops[0].attainable_tflops.has_value());
  EXPECT_FALSE(e.ridge_point.has_value());
  EXPECT_DOUBLE_EQ(e.peak_bandwidth_gbps, 0);
}

TEST(ComputeEfficiency, CpuTraceHasHostRatesAndNoMfu) {
  const Trace trace = linear_steps(false);
  const ComputeEfficiencyResult e = analyze_rank(trace, {}).compute_efficiency;
  ASSERT_TRUE(e.applicable);
  EXPECT_EQ(e.ops[0].time_ns, 3 * 100'000);  // the op's host time
  EXPECT_FALSE(e.mfu.has_value());
  EXPECT_TRUE(e.device_name.empty());
}

TEST(ComputeEfficiency, WithoutShapesItSaysHowToRecordThem) {
  TraceFixture f;
  f.step(0, 0, 1000);
  f.op("aten::mm", 10, 100);
  const Trace trace = f.load();
  const ComputeEfficiencyResult e = analyze_rank(trace, {}).compute_efficiency;
  EXPECT_FALSE(e.applicable);
  EXPECT_NE(e.not_applicable_reason.find("record_shapes=True"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
