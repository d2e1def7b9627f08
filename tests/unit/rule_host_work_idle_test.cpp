#include <gtest/gtest.h>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// Steps of 1000 µs: both kernels are launched at the start of the step, so no launch is late,
// but the second starts only when the host's metric (computed on the CPU, as a stream wait on
// an event it records) is done. The GPU idle in between is the host's other work.
Trace metric_on_the_host(double metric_us) {
  TraceFixture fixture;
  std::int64_t correlation = 500;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("forward_kernel", t0 + 1, t0 + 10, 290);
    // Launched at 20 µs, runs only after the host's metric: a wait on an event the host records.
    fixture.runtime("cudaLaunchKernel", t0 + 20, 5, correlation);
    fixture.kernel("backward_kernel", t0 + 300 + metric_us, 990 - 300 - metric_us - 5,
                   correlation++);
    fixture.op("compute_metric", t0 + 30, 270 + metric_us);
  }
  return fixture.load();
}

TEST(RuleHostWorkIdle, IdleNoOtherCauseOwnsIsFoundWithTheHostWorkDuringIt) {
  const Diagnosis diagnosis = testing::diagnose_trace(metric_on_the_host(400));
  const Finding* finding = testing::find_finding(diagnosis, "host-work-idle");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->bottleneck, Bottleneck::kHostOverhead);
  EXPECT_EQ(testing::find_finding(diagnosis, "launch-bound"), nullptr);
  // 300-700 µs of each step; the edges of the steps add a few µs.
  EXPECT_NEAR(static_cast<double>(finding->gain.bound_ns), 400'000, 10'000);
  ASSERT_EQ(finding->evidence.size(), 2U);
  ASSERT_FALSE(finding->evidence[1].events.empty());
  EXPECT_EQ(finding->evidence[1].events[0].name, "compute_metric");
  EXPECT_EQ(finding->evidence[1].events[0].count, 4);
}

TEST(RuleHostWorkIdle, ShortHostWorkIsNotAFinding) {
  const Diagnosis diagnosis = testing::diagnose_trace(metric_on_the_host(20));
  EXPECT_EQ(testing::find_finding(diagnosis, "host-work-idle"), nullptr);
}

}  // namespace
}  // namespace stepscope
