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

// Steps of 1000 µs: compute 10-600 µs, then an all-reduce from `comm_start` for 300 µs.
Trace steps_with_allreduce(double comm_start) {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("gemm", t0 + 1, t0 + 10, 590);
    fixture.runtime("cudaLaunchKernel", t0 + 5, 2, 500 + s);
    fixture.kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", t0 + comm_start, 300, 500 + s, 20);
  }
  return fixture.load();
}

TEST(RuleExposedCommunication, AllReduceAfterComputeIsExposed) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_allreduce(600));
  const Finding* finding = find(diagnosis, "exposed-communication");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->gain.bound_ns, 300'000);
  EXPECT_EQ(finding->part, StepPart::kCommunication);
  ASSERT_EQ(finding->evidence[0].events.size(), 1U);
  EXPECT_EQ(finding->evidence[0].events[0].count, 3);
}

TEST(RuleExposedCommunication, OverlappedAllReduceIsFine) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_allreduce(200));
  EXPECT_EQ(find(diagnosis, "exposed-communication"), nullptr);
}

}  // namespace
}  // namespace stepscope
