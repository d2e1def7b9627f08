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

std::string device(int major) {
  return R"([{"id":0,"name":"Test GPU","computeMajor":)" + std::to_string(major) +
         R"(,"computeMinor":0,"numSms":100}])";
}

// Steps of 1000 µs, GPU busy 0-900 µs: `gemm` for 600 µs then an elementwise kernel.
Trace steps_with_gemm(const std::string& gemm_name, int compute_major) {
  TraceFixture fixture;
  fixture.top_level("deviceProperties", device(compute_major));
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel(gemm_name, t0 + 1, t0 + 10, 600);
    fixture.launched_kernel("vectorized_elementwise_kernel", t0 + 7, t0 + 610, 300);
  }
  return fixture.load();
}

TEST(RuleTensorCoresIdle, Fp32GemmOnAmpereIsFound) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_gemm("ampere_sgemm_128x64_tn", 8));
  const Finding* finding = find(diagnosis, "tensor-cores-idle");
  ASSERT_NE(finding, nullptr);
  EXPECT_NEAR(finding->evidence[1].value, 100.0 * 600 / 900, 1e-9);
  // A device outside the peak table: 2x assumed, bound 600 µs x (1 - 1/2) = 300 µs per step.
  EXPECT_EQ(finding->gain.bound_ns, 300'000);
  // The GPU finishes at 910 µs of each 1000 µs step: faster kernels do not shorten it.
  EXPECT_EQ(finding->gain.likely_ns, 0);
  EXPECT_NE(finding->gain.method.find("not in the peak table"), std::string::npos);
  EXPECT_NE(finding->fix.find("autocast"), std::string::npos);
}

TEST(RuleTensorCoresIdle, TheGainIsTheReplayOfGpuBoundSteps) {
  TraceFixture fixture;
  fixture.top_level("deviceProperties",
                    R"([{"id":0,"name":"NVIDIA A100-SXM4-80GB","computeMajor":8,)"
                    R"("computeMinor":0,"numSms":108}])");
  // Steps of 1000 µs: a 900 µs sgemm, waited for by a sync that returns 2 µs after it, then
  // 88 µs of host work. The GPU sets the pace.
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + 1, t0 + 10, 900);
    fixture.runtime("cudaStreamSynchronize", t0 + 20, 892, 500 + s);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = find(diagnosis, "tensor-cores-idle");
  ASSERT_NE(finding, nullptr);
  // The A100's 312 / 19.5 = 16x: each step is 900 µs x (1 - 1/16) shorter (no shapes: no casts).
  EXPECT_NEAR(static_cast<double>(finding->gain.likely_ns), 900'000 * (1 - 1 / 16.0), 2.0);
  EXPECT_NE(finding->gain.method.find("replayed"), std::string::npos);
}

TEST(RuleTensorCoresIdle, NoTensorCoresBeforeVolta) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(steps_with_gemm("maxwell_sgemm_128x64_tn", 6));
  EXPECT_EQ(find(diagnosis, "tensor-cores-idle"), nullptr);
}

TEST(RuleTensorCoresIdle, TensorCoreKernelsAreFine) {
  const Diagnosis diagnosis = testing::diagnose_trace(
      steps_with_gemm("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", 9));
  EXPECT_EQ(find(diagnosis, "tensor-cores-idle"), nullptr);
}

TEST(RuleTensorCoresIdle, MixedPrecisionAlreadyInUseGetsNoPrecisionAdvice) {
  // autocast is on: bf16 tensor-core GEMMs take 600 µs per step, a head kept in fp32 300 µs
  // (a third of kernel time, above the 10 % threshold on its own).
  TraceFixture fixture;
  fixture.top_level("deviceProperties", device(9));
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
                            t0 + 1, t0 + 10, 600);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + 7, t0 + 610, 300);
  }
  EXPECT_EQ(find(testing::diagnose_trace(fixture.load()), "tensor-cores-idle"), nullptr);
}

TEST(RuleTensorCoresIdle, MostlyFp32WithATensorCoreKernelIsStillFound) {
  // 600 µs fp32 against 100 µs on tensor cores: most matrix math still runs in fp32.
  TraceFixture fixture;
  fixture.top_level("deviceProperties", device(9));
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + 1, t0 + 10, 600);
    fixture.launched_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas",
                            t0 + 7, t0 + 610, 100);
  }
  EXPECT_NE(find(testing::diagnose_trace(fixture.load()), "tensor-cores-idle"), nullptr);
}

}  // namespace
}  // namespace stepscope
