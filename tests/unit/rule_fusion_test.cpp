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

// Steps of 1000 µs with `chains` chains of six 10 µs elementwise kernels, 2 µs apart.
Trace steps_with_chains(int chains, const std::string& name) {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    for (int c = 0; c < chains; ++c) {
      for (int k = 0; k < 6; ++k) {
        const double start = t0 + 20 + c * 150 + k * 12;
        fixture.launched_kernel(name, t0 + 1 + c * 6 + k, start, 10);
      }
    }
    fixture.launched_kernel("gemm", t0 + 5, t0 + 900, 80);
  }
  return fixture.load();
}

TEST(RuleFusion, ElementwiseChainsAreFound) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(steps_with_chains(5, "vectorized_elementwise_kernel"));
  const Finding* finding = find(diagnosis, "fusion");
  ASSERT_NE(finding, nullptr);
  EXPECT_DOUBLE_EQ(finding->evidence[0].value, 5.0);
  // Each chain spans 70 µs and its longest kernel is 10 µs: 60 µs saved, five chains a step.
  EXPECT_EQ(finding->gain.bound_ns, 300'000);
}

TEST(RuleFusion, LongGemmsAreNotAChain) {
  const Diagnosis diagnosis = testing::diagnose_trace(steps_with_chains(5, "sgemm_kernel"));
  EXPECT_EQ(find(diagnosis, "fusion"), nullptr);
}

}  // namespace
}  // namespace stepscope
