#include <gtest/gtest.h>

#include "diff/diff_parts.h"
#include "stepscope/diff.h"

namespace stepscope {
namespace {

// `n` steps around `mean_us` with a deterministic ±`spread_us` zig-zag.
StepSample steps(int n, double mean_us, double spread_us) {
  StepSample sample;
  sample.ranks = 1;
  for (int i = 0; i < n; ++i) {
    const double offset = (i % 3 - 1) * spread_us;
    sample.durations_ns.push_back(static_cast<std::int64_t>((mean_us + offset) * 1000));
  }
  return sample;
}

StepComparison compare(const StepSample& before, const StepSample& after, std::uint64_t seed = 1) {
  return diff::compare_steps(before, after, {10, seed, 2000});
}

TEST(DiffSteps, ClearlyFaster) {
  const StepComparison c = compare(steps(12, 100'000, 3'000), steps(12, 80'000, 3'000));
  EXPECT_EQ(c.verdict, Verdict::kFaster);
  EXPECT_LT(c.ratio_high, 1.0);
  EXPECT_LE(c.ratio_low, c.ratio);
  EXPECT_GE(c.ratio_high, c.ratio);
  EXPECT_NEAR(c.ratio, 0.8, 1e-9);
  EXPECT_NEAR(c.change_share, -0.2, 1e-9);
  EXPECT_NEAR(c.change_ns, -20'000'000.0, 1e-3);
  EXPECT_EQ(c.before_mean_ns, 100'000'000.0);
  EXPECT_EQ(c.after_median_ns, 80'000'000.0);
}

TEST(DiffSteps, ClearlySlower) {
  const StepComparison c = compare(steps(9, 50'000, 1'000), steps(9, 60'000, 1'000));
  EXPECT_EQ(c.verdict, Verdict::kSlower);
  EXPECT_GT(c.ratio_low, 1.0);
  EXPECT_NEAR(c.change_share, 0.2, 1e-9);
}

TEST(DiffSteps, IdenticalRunsHaveNoSignificantChange) {
  const StepSample sample = steps(9, 70'000, 5'000);
  const StepComparison c = compare(sample, sample);
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
  EXPECT_LT(c.ratio_low, 1.0);
  EXPECT_GT(c.ratio_high, 1.0);
  EXPECT_EQ(c.change_ns, 0.0);
  // Constant steps: the interval collapses onto 1, which is still no change.
  const StepComparison flat = compare(steps(5, 70'000, 0), steps(5, 70'000, 0));
  EXPECT_EQ(flat.verdict, Verdict::kNoSignificantChange);
  EXPECT_EQ(flat.ratio_low, 1.0);
  EXPECT_EQ(flat.ratio_high, 1.0);
}

TEST(DiffSteps, NoisySmallChangeIsNotSignificant) {
  // 2 % apart with ±20 % noise over 6 steps.
  const StepComparison c = compare(steps(6, 100'000, 20'000), steps(6, 102'000, 20'000));
  EXPECT_EQ(c.verdict, Verdict::kNoSignificantChange);
}

TEST(DiffSteps, DeterministicForASeed) {
  const StepSample before = steps(8, 100'000, 10'000);
  const StepSample after = steps(8, 95'000, 12'000);
  const StepComparison a = compare(before, after, 42);
  const StepComparison b = compare(before, after, 42);
  EXPECT_EQ(a.ratio_low, b.ratio_low);
  EXPECT_EQ(a.ratio_high, b.ratio_high);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.seed, 42U);
  EXPECT_EQ(a.resamples, 2000);
}

TEST(DiffSteps, FewerThanTwoStepsIsUndetermined) {
  const StepComparison c = compare(steps(1, 100'000, 0), steps(5, 50'000, 1'000));
  EXPECT_EQ(c.verdict, Verdict::kUndetermined);
  EXPECT_NE(c.reason.find("fewer than 2"), std::string::npos);
  const StepComparison empty = compare(StepSample{}, steps(5, 50'000, 1'000));
  EXPECT_EQ(empty.verdict, Verdict::kUndetermined);
}

TEST(DiffSteps, FailIfSlowerNeedsTheLowerBoundBeyondThePercentage) {
  DiffResult result;
  result.steps.verdict = Verdict::kSlower;
  result.steps.ratio = 1.10;
  result.steps.ratio_low = 1.08;
  result.steps.ratio_high = 1.12;
  EXPECT_TRUE(slower_beyond(result, 5));
  EXPECT_FALSE(slower_beyond(result, 8));   // exactly at the bound: not beyond
  EXPECT_FALSE(slower_beyond(result, 10));  // the point estimate is 10 %, the bound is not
  result.steps.verdict = Verdict::kNoSignificantChange;
  result.steps.ratio_low = 0.98;
  EXPECT_FALSE(slower_beyond(result, 0));
  result.steps.verdict = Verdict::kUndetermined;
  result.steps.ratio_low = 0;
  EXPECT_FALSE(slower_beyond(result, 0));
  // The statistic end to end: 20 % slower with little noise fails at 5 %, passes at 30 %.
  result.steps = compare(steps(10, 50'000, 500), steps(10, 60'000, 500));
  EXPECT_TRUE(slower_beyond(result, 5));
  EXPECT_FALSE(slower_beyond(result, 30));
}

TEST(DiffSteps, VerdictNames) {
  EXPECT_EQ(to_string(Verdict::kFaster), "faster");
  EXPECT_EQ(to_string(Verdict::kSlower), "slower");
  EXPECT_EQ(to_string(Verdict::kNoSignificantChange), "no significant change");
  EXPECT_EQ(to_string(Verdict::kUndetermined), "undetermined");
}

}  // namespace
}  // namespace stepscope
