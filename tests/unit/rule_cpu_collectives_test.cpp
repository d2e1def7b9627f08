#include <gtest/gtest.h>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

const Finding* find(const Diagnosis& diagnosis) {
  return testing::find_finding(diagnosis, "cpu-collectives");
}

// CPU-only steps of 1000 µs on thread 1: compute, then c10d::allreduce_ hands the gradient to
// gloo's thread (2), whose all_reduce runs from `gloo_start` for `gloo_us`; then the optimizer.
Trace gloo_steps(double compute_us, double gloo_start, double gloo_us) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("aten::mm", t0 + 1, compute_us - 1);
    fixture.op("c10d::allreduce_", t0 + compute_us, 10);
    fixture.op("gloo:all_reduce", t0 + gloo_start, gloo_us, 2);
    fixture.op("aten::add_", t0 + 850, 100);
  }
  return fixture.load();
}

TEST(RuleCpuCollectives, AllReduceWithTheMainThreadIdleIsFound) {
  // Compute to 300 µs; c10d 300-310; gloo 310-800 with nothing on thread 1; add_ from 850.
  const Diagnosis diagnosis = testing::diagnose_trace(gloo_steps(300, 310, 490));
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kCommunication);
  EXPECT_EQ(finding->gain.bound_ns, 500'000);  // 300-800 µs
  EXPECT_EQ(finding->gain.likely_ns, 250'000);
  EXPECT_NEAR(finding->gain.bound_share, 0.5, 1e-9);
  ASSERT_GE(finding->evidence.size(), 3U);
  EXPECT_DOUBLE_EQ(finding->evidence[1].value, 0.5);  // all collective time ...
  EXPECT_DOUBLE_EQ(finding->evidence[2].value, 0);    // ... none of it overlapped
  ASSERT_EQ(finding->evidence[0].events.size(), 2U);
  EXPECT_EQ(finding->evidence[0].events[0].count, 4);
  EXPECT_NE(finding->fix.find("gradient_as_bucket_view"), std::string::npos);
  EXPECT_NE(finding->fix.find("stepscope analyze FOLDER"), std::string::npos);
}

TEST(RuleCpuCollectives, AllReduceHiddenBehindComputeIsNotAFinding) {
  // gloo runs 400-800 µs while thread 1 still computes until 840 µs.
  EXPECT_EQ(find(testing::diagnose_trace(gloo_steps(840, 400, 400))), nullptr);
}

TEST(RuleCpuCollectives, ShortAllReduceIsBelowTheThreshold) {
  // 60 µs of 1000 exposed: 6 %.
  EXPECT_EQ(find(testing::diagnose_trace(gloo_steps(750, 760, 50))), nullptr);
}

TEST(RuleCpuCollectives, CollectiveNestedInABackwardOpCountsAsCommunication) {
  // DDP's hook calls all_reduce from inside the backward op: the op's span is not work while
  // the collective inside it runs.
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("autograd::engine::evaluate_function: AddmmBackward0", t0 + 1, 900);
    fixture.op("c10d::allreduce_", t0 + 300, 500);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->gain.bound_ns, 500'000);
}

TEST(RuleCpuCollectives, GpuTracesAreLeftToExposedCommunication) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("c10d::allreduce_", t0 + 100, 800);
    fixture.launched_kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", t0 + 101, t0 + 110, 700);
  }
  EXPECT_EQ(find(testing::diagnose_trace(fixture.load())), nullptr);
}

}  // namespace
}  // namespace stepscope
