#include <fmt/format.h>
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

// Steps of 1000 µs: an aten::mm with the given dims and type launches a 500 µs GEMM.
Trace steps_with_mm(const std::string& dims, const std::string& type, const std::string& args) {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    const std::int64_t external = 100 + s;
    fixture.step(s, t0, 1000);
    fixture.op("aten::mm", t0 + 1, 20, 1, external,
               fmt::format(R"("Input Dims":{0},"Input type":["{1}","{1}"])", dims, type));
    fixture.runtime("cudaLaunchKernel", t0 + 5, 5, 200 + s, 1, external);
    fixture.kernel("sm90_xmma_gemm_f16f16_f16f32", t0 + 12, 500, 200 + s, 7, 0, external, args);
  }
  return fixture.load();
}

TEST(RuleUnalignedShapes, OddHalfPrecisionDimsAreFound) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(steps_with_mm("[[64, 1001], [1001, 4096]]", "c10::Half", ""));
  const Finding* finding = find(diagnosis, "unaligned-shapes");
  ASSERT_NE(finding, nullptr);
  EXPECT_DOUBLE_EQ(finding->evidence[0].value, 0.5);
  EXPECT_EQ(finding->gain.bound_ns, 250'000);
}

TEST(RuleUnalignedShapes, AlignedOrFloat32IsFine) {
  EXPECT_EQ(
      find(testing::diagnose_trace(steps_with_mm("[[64, 1024], [1024, 4096]]", "c10::Half", "")),
           "unaligned-shapes"),
      nullptr);
  EXPECT_EQ(find(testing::diagnose_trace(steps_with_mm("[[64, 1001], [1001, 4096]]", "float", "")),
                 "unaligned-shapes"),
            nullptr);
}

TEST(RuleLowOccupancy, BusyGpuWithFewBlocksIsFound) {
  const Diagnosis diagnosis = testing::diagnose_trace(
      steps_with_mm("[[8, 1024], [1024, 1024]]", "c10::Half",
                    R"("blocks per SM":0.25,"est. achieved occupancy %":6)"));
  ASSERT_EQ(find(diagnosis, "unaligned-shapes"), nullptr);
  // 500 µs of kernel in 1000 µs steps: utilization 50 %, under the 60 % threshold.
  EXPECT_EQ(find(diagnosis, "low-occupancy"), nullptr);
  // A GEMV that keeps the GPU 90 % busy with a quarter block per SM.
  TraceFixture with_args;
  for (int s = 0; s < 3; ++s) {
    with_args.step(s, s * 1000.0, 1000);
    with_args.runtime("cudaLaunchKernel", s * 1000.0 + 1, 5, 300 + s);
    with_args.kernel("gemv_kernel", s * 1000.0 + 10, 900, 300 + s, 7, 0, -1,
                     R"("blocks per SM":0.25,"est. achieved occupancy %":6)");
  }
  const Diagnosis low = testing::diagnose_trace(with_args.load());
  const Finding* finding = find(low, "low-occupancy");
  ASSERT_NE(finding, nullptr);
  EXPECT_DOUBLE_EQ(finding->evidence[1].value, 100.0);
}

}  // namespace
}  // namespace stepscope
