// FLOPs from shapes match the formulas exactly, outermost ops count once, and MFU is the
// achieved rate over the datasheet peak of the trace's device.
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
