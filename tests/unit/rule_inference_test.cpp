// The inference rules fire on a forward-only loop recorded with the mistake and stay silent on
// the corrected loop and on training loops.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

struct Loop {
  bool grad_mode = true;   // ops carry a Sequence number
  bool train_mode = true;  // dropout draws masks
  bool backward = false;   // a training step: backward after forward
  int layers = 12;
};

// Steps of 1000 µs: `layers` linear layers, each followed by dropout; optionally a backward.
Trace loop_trace(const Loop& loop) {
  TraceFixture fixture;
  std::int64_t sequence = 100;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    for (int l = 0; l < loop.layers; ++l) {
      const double at = t0 + 10 + l * 40.0;
      const std::string seq =
          loop.grad_mode ? "\"Sequence number\": " + std::to_string(sequence++) : "";
      fixture.op("aten::linear", at, 20, 1, -1, seq);
      fixture.op("aten::addmm", at + 1, 18, 1, -1, seq);
      fixture.op("aten::dropout", at + 22, 10, 1);
      if (loop.train_mode) fixture.op("aten::bernoulli_", at + 23, 6, 1);
    }
    if (loop.backward) {
      fixture.op("autograd::engine::evaluate_function: AddmmBackward0", t0 + 600, 300, 2);
    }
  }
  return fixture.load();
}

std::optional<Finding> finding(const Loop& loop, const std::string& id) {
  const Trace trace = loop_trace(loop);
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* found = testing::find_finding(diagnosis, id);
  return found == nullptr ? std::nullopt : std::optional<Finding>(*found);
}

TEST(RuleAutogradInInference, FiresOnAForwardLoopWithGradModeOn) {
  const std::optional<Finding> f = finding({}, "autograd-in-inference");
  ASSERT_TRUE(f.has_value());
  EXPECT_DOUBLE_EQ(f->evidence[0].value, 12.0);  // distinct sequence numbers per step
  EXPECT_EQ(f->part, StepPart::kForward);
  EXPECT_NE(f->fix.find("torch.inference_mode()"), std::string::npos);
  EXPECT_GT(f->gain.likely_ns, 0);
  EXPECT_LE(f->gain.likely_ns, f->gain.bound_ns);
}

TEST(RuleAutogradInInference, SilentUnderInferenceModeInTrainingOrWithFewNodes) {
  EXPECT_FALSE(finding({.grad_mode = false}, "autograd-in-inference").has_value());
  EXPECT_FALSE(finding({.backward = true}, "autograd-in-inference").has_value());
  EXPECT_FALSE(finding({.layers = 5}, "autograd-in-inference").has_value());
}

TEST(RuleDropoutInInference, FiresWhenDropoutDrawsMasksInAForwardLoop) {
  const std::optional<Finding> f = finding({.grad_mode = false}, "dropout-in-inference");
  ASSERT_TRUE(f.has_value());
  EXPECT_DOUBLE_EQ(f->evidence[0].value, 12.0);
  EXPECT_GE(f->severity, Severity::kMedium);
  EXPECT_NE(f->fix.find("model.eval()"), std::string::npos);
  ASSERT_FALSE(f->evidence[0].events.empty());
  EXPECT_EQ(f->evidence[0].events[0].name, "aten::bernoulli_");
}

TEST(RuleDropoutInInference, SilentInEvalModeAndInTraining) {
  // eval(): aten::dropout still runs but returns its input, drawing no mask.
  EXPECT_FALSE(
      finding({.grad_mode = false, .train_mode = false}, "dropout-in-inference").has_value());
  EXPECT_FALSE(finding({.backward = true}, "dropout-in-inference").has_value());
}

}  // namespace
}  // namespace stepscope
