#include <gtest/gtest.h>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

const Finding* find(const Diagnosis& diagnosis, const std::string& id) {
  return testing::find_finding(diagnosis, id);
}

// 50 tiny kernels per 1000 µs step, each launched 20 µs apart and running 4 µs right after its
// launch: the GPU waits on the host 16 µs of every 20.
Trace tiny_kernels(bool queued_ahead, const std::string& kernel = "vectorized_elementwise_kernel",
                   bool graph_launch = false) {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("aten::add", t0 + 1, 998);
    for (int k = 0; k < 50; ++k) {
      const double call = t0 + 2 + k * 19.0;
      // Queued ahead: all launched in the first 250 µs, run back to back later.
      const double launch = queued_ahead ? t0 + 2 + k * 5.0 : call;
      const double start = queued_ahead ? t0 + 300 + k * 13.0 : call + 6;
      fixture.launched_kernel(kernel, launch, start, 4);
    }
    if (graph_launch) fixture.runtime("cudaGraphLaunch", t0 + 990, 5, 9'000'000 + s);
  }
  return fixture.load();
}

TEST(RuleLaunchBound, TinyKernelsLaunchedOneByOneAreFound) {
  const Diagnosis diagnosis = testing::diagnose_trace(tiny_kernels(false));
  const Finding* finding = find(diagnosis, "launch-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kHostOverhead);
  // 49 gaps of 15 µs per step between the kernels, plus the GPU waiting from the last kernel
  // of a step (943 µs) to the step's end (1000 µs) for the next step's launches: 57 µs after
  // each of the first two steps, averaged over three.
  EXPECT_EQ(finding->gain.bound_ns, 49 * 15'000 + (2 * 57'000) / 3);
  EXPECT_DOUBLE_EQ(finding->evidence[1].value, 50.0);
  EXPECT_DOUBLE_EQ(finding->evidence[2].value, 100.0);
  ASSERT_FALSE(finding->evidence[4].events.empty());
  EXPECT_EQ(finding->evidence[4].events[0].name, "aten::add");
}

TEST(RuleLaunchBound, CompiledModelIsToldCudaGraphsNotCompile) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(tiny_kernels(false, "triton_poi_fused_add_mul_0"));
  const Finding* finding = find(diagnosis, "launch-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fix.find("mode=\"reduce-overhead\""), std::string::npos);
  EXPECT_NE(finding->fix.find("graph_breaks"), std::string::npos);
  EXPECT_EQ(finding->fix.find("torch.compile(model) to fuse"), std::string::npos);
}

TEST(RuleLaunchBound, CompiledModelWithCudaGraphsIsToldToRemoveGraphBreaks) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(tiny_kernels(false, "triton_poi_fused_add_mul_0", true));
  const Finding* finding = find(diagnosis, "launch-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fix.find("already runs under torch.compile with CUDA graphs"),
            std::string::npos);
  EXPECT_EQ(finding->fix.find("mode=\"reduce-overhead\""), std::string::npos);
}

TEST(RuleLaunchBound, UncompiledModelIsToldToCompile) {
  const Diagnosis diagnosis = testing::diagnose_trace(tiny_kernels(false));
  const Finding* finding = find(diagnosis, "launch-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fix.find("torch.compile(model) to fuse"), std::string::npos);
}

TEST(RuleLaunchBound, WorkQueuedAheadIsNotHostWait) {
  const Diagnosis diagnosis = testing::diagnose_trace(tiny_kernels(true));
  EXPECT_EQ(find(diagnosis, "launch-bound"), nullptr);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

TEST(RuleInferenceLaunchBound, BatchOfOneWithoutBackwardIsInference) {
  testing::TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    for (int k = 0; k < 40; ++k) {
      const double call = t0 + 2 + k * 24.0;
      fixture.op("aten::linear", call - 1, 20, 1, -1,
                 R"("Input Dims":[[1, 512], [512, 512], [512]])");
      fixture.launched_kernel("gemv_kernel", call, call + 6, 4);
    }
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  ASSERT_FALSE(diagnosis.findings.empty());
  EXPECT_EQ(diagnosis.findings[0].id, "inference-launch-bound");
  EXPECT_NE(diagnosis.findings[0].fix.find("inference_mode"), std::string::npos);
}

TEST(RuleInferenceLaunchBound, TrainingStaysLaunchBound) {
  const Diagnosis diagnosis = testing::diagnose_trace(tiny_kernels(false));
  ASSERT_FALSE(diagnosis.findings.empty());
  EXPECT_EQ(diagnosis.findings[0].id, "launch-bound");
}

}  // namespace
}  // namespace stepscope
