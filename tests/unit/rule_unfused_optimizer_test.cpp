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

// Steps of 1000 µs: a forward kernel, then Optimizer.step over 400-900 µs launching `kernels`
// kernels named `name`.
Trace steps_with_optimizer(int kernels, const std::string& name,
                           const std::string& op = "aten::add_") {
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("gemm", t0 + 1, t0 + 10, 380);
    fixture.annotation("Optimizer.step#AdamW.step", t0 + 400, 500);
    for (int k = 0; k < kernels; ++k) {
      const double at = t0 + 401 + k * (490.0 / kernels);
      fixture.op(op, at, 6);  // holds its launch call (at + 0.5, 5 µs)
      fixture.launched_kernel(name, at + 0.5, at + 6, 2);
    }
  }
  return fixture.load();
}

TEST(RuleUnfusedOptimizer, PerParameterKernelsAreFound) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(steps_with_optimizer(40, "vectorized_elementwise_kernel"));
  const Finding* finding = find(diagnosis, "unfused-optimizer");
  ASSERT_NE(finding, nullptr);
  EXPECT_DOUBLE_EQ(finding->evidence[0].value, 40.0);
  EXPECT_EQ(finding->part, StepPart::kOptimizer);
  EXPECT_NE(finding->fix.find("fused=True"), std::string::npos);
}

TEST(RuleUnfusedOptimizer, MultiTensorKernelsMeanItIsAlreadyFused) {
  const Diagnosis diagnosis = testing::diagnose_trace(
      steps_with_optimizer(40, "void multi_tensor_apply_kernel<TensorListMetadata<4>>"));
  EXPECT_EQ(find(diagnosis, "unfused-optimizer"), nullptr);
}

TEST(RuleUnfusedOptimizer, ForeachOpsMeanItIsAlreadyForeach) {
  // foreach=True whose kernels still come one per tensor (its slow path, e.g. mixed dtypes or
  // devices): the user already chose the multi-tensor optimizer, so no optimizer advice.
  const Diagnosis diagnosis = testing::diagnose_trace(
      steps_with_optimizer(40, "vectorized_elementwise_kernel", "aten::_foreach_add_"));
  EXPECT_EQ(find(diagnosis, "unfused-optimizer"), nullptr);
}

TEST(RuleUnfusedOptimizer, FewKernelsAreFine) {
  const Diagnosis diagnosis =
      testing::diagnose_trace(steps_with_optimizer(5, "vectorized_elementwise_kernel"));
  EXPECT_EQ(find(diagnosis, "unfused-optimizer"), nullptr);
}

}  // namespace
}  // namespace stepscope
