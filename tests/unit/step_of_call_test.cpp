// StepOfCall finds, for each call alone, the step that a forward walk over calls in start order
// finds, also when steps nest or overlap (compat-tb keeps every ProfilerStep#).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "analysis/launch_match.h"

namespace stepscope {
namespace {

struct Call {
  std::int64_t start;
  std::int64_t end;
};

// The walk find_steps used to make: one pointer over the steps that only moves forward.
std::vector<std::size_t> walk(const std::vector<Step>& steps, const std::vector<Call>& calls) {
  std::vector<std::size_t> found;
  std::size_t step = 0;
  for (const Call& call : calls) {
    while (step < steps.size() && call.start >= steps[step].host_end_ns) ++step;
    if (step >= steps.size() || call.start < steps[step].host_start_ns ||
        call.end > steps[step].host_end_ns) {
      found.push_back(StepOfCall::kNone);
    } else {
      found.push_back(step);
    }
  }
  return found;
}

Step step(std::int64_t start, std::int64_t end) {
  Step s;
  s.host_start_ns = start;
  s.host_end_ns = end;
  return s;
}

TEST(StepOfCall, FindsTheHoldingStepOrNone) {
  const std::vector<Step> steps = {step(0, 100), step(100, 200), step(250, 300)};
  const StepOfCall of(steps);
  EXPECT_EQ(of.find(0, 10), 0U);
  EXPECT_EQ(of.find(95, 100), 0U);
  EXPECT_EQ(of.find(95, 105), StepOfCall::kNone);  // crosses the boundary
  EXPECT_EQ(of.find(100, 120), 1U);
  EXPECT_EQ(of.find(210, 220), StepOfCall::kNone);  // between steps
  EXPECT_EQ(of.find(300, 310), StepOfCall::kNone);  // after the last
  EXPECT_EQ(of.find(-5, 1), StepOfCall::kNone);     // before the first
}

TEST(StepOfCall, AgreesWithTheForwardWalkOnNestedAndOverlappingSteps) {
  std::mt19937 random(11);
  for (int round = 0; round < 200; ++round) {
    std::vector<Step> steps;
    std::int64_t start = 0;
    const int count = 1 + static_cast<int>(random() % 8);
    for (int s = 0; s < count; ++s) {
      start += static_cast<std::int64_t>(random() % 60);
      steps.push_back(step(start, start + 1 + static_cast<std::int64_t>(random() % 150)));
    }
    std::vector<Call> calls;
    for (int c = 0; c < 60; ++c) {
      const auto call_start = static_cast<std::int64_t>(random() % 600) - 20;
      calls.push_back(Call{call_start, call_start + static_cast<std::int64_t>(random() % 30)});
    }
    std::sort(calls.begin(), calls.end(),
              [](const Call& a, const Call& b) { return a.start < b.start; });
    const std::vector<std::size_t> expected = walk(steps, calls);
    const StepOfCall of(steps);
    for (std::size_t c = 0; c < calls.size(); ++c) {
      ASSERT_EQ(of.find(calls[c].start, calls[c].end), expected[c])
          << "round " << round << " call " << c;
    }
  }
}

}  // namespace
}  // namespace stepscope
