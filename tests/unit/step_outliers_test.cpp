// Outlier steps (docs/metrics/02-step-time-statistics.md §2) from durations sorted once give the
// very doubles and flags of copying and sorting the other steps' durations for every step.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "analysis/spread_of_others.h"
#include "stepscope/analysis/steps.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// The straightforward definition: sort a copy, take the middle.
double reference_median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

SpreadOfOthers reference_spread(const std::vector<double>& values, std::size_t left_out) {
  std::vector<double> others;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != left_out) others.push_back(values[i]);
  }
  const double center = reference_median(others);
  std::vector<double> deviations;
  deviations.reserve(others.size());
  for (const double value : others) deviations.push_back(std::fabs(value - center));
  return {center, reference_median(deviations)};
}

std::vector<bool> reference_outliers(const std::vector<double>& durations) {
  std::vector<bool> flags(durations.size(), false);
  if (durations.size() < 5) return flags;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    const SpreadOfOthers others = reference_spread(durations, i);
    const double excess = durations[i] - others.median;
    flags[i] = excess > 3.0 * 1.4826 * others.mad && excess > 0.10 * others.median;
  }
  return flags;
}

std::uint64_t bits(double value) { return std::bit_cast<std::uint64_t>(value); }

// Step-like durations: a typical time with jitter, repeats from a small pool, and slow spikes.
std::vector<double> random_durations(std::mt19937_64& random, std::size_t n) {
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<std::int64_t> jitter(-40, 40);
  std::uniform_int_distribution<std::int64_t> pool(0, 3);
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) {
    const int k = kind(random);
    const std::int64_t us = k < 4   ? 1000 + pool(random) * 10
                            : k < 9 ? 1000 + jitter(random)
                                    : 1500 + jitter(random) * 20;
    values.push_back(static_cast<double>(us));
  }
  return values;
}

// Non-integer values whose sums and differences round.
std::vector<double> rounding_values(std::mt19937_64& random, std::size_t n) {
  std::uniform_int_distribution<int> numerator(1, 40);
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) values.push_back(numerator(random) / 3.0 + 1e15);
  return values;
}

void expect_spreads_match(const std::vector<double>& values) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t p = 0; p < sorted.size(); ++p) {
    const SpreadOfOthers expected = reference_spread(sorted, p);
    const SpreadOfOthers actual = spread_of_others(sorted, p);
    ASSERT_EQ(bits(actual.median), bits(expected.median))
        << "size " << sorted.size() << " at " << p;
    ASSERT_EQ(bits(actual.mad), bits(expected.mad)) << "size " << sorted.size() << " at " << p;
  }
}

TEST(StepOutliers, SpreadOfOthersIsTheSortedCopysBitForBit) {
  std::mt19937_64 random(11);
  for (int round = 0; round < 20; ++round) {
    for (std::size_t n = 2; n <= 60; ++n) {
      expect_spreads_match(random_durations(random, n));
      expect_spreads_match(rounding_values(random, n));
    }
  }
}

TEST(StepOutliers, SpreadOfOthersWithAllEqualOrTwoValues) {
  for (std::size_t n = 2; n <= 12; ++n) {
    expect_spreads_match(std::vector<double>(n, 7.0));
    std::vector<double> two_values(n, 3.0);
    two_values.front() = 1e9;
    expect_spreads_match(two_values);
    std::vector<double> halves(n, 0.1);
    std::fill(halves.begin(), halves.begin() + static_cast<std::ptrdiff_t>(n / 2), 0.7);
    expect_spreads_match(halves);
  }
}

// CPU-only profiler steps back to back: a step's duration is its host span.
StepsResult steps_of(const std::vector<double>& durations_us) {
  TraceFixture fixture;
  double start = 0;
  for (std::size_t i = 0; i < durations_us.size(); ++i) {
    fixture.step(static_cast<std::int64_t>(i + 1), start, durations_us[i]);
    start += durations_us[i];
  }
  return find_steps(fixture.load(), {});
}

std::vector<bool> flags_of(const StepsResult& result) {
  std::vector<bool> flags;
  for (const Step& step : result.steps) flags.push_back(step.outlier);
  return flags;
}

TEST(StepOutliers, FlagsMatchTheReferenceOnRandomSteps) {
  std::mt19937_64 random(5);
  int flagged = 0;
  for (std::size_t n = 1; n <= 60; ++n) {
    const std::vector<double> durations = random_durations(random, n);
    const StepsResult result = steps_of(durations);
    ASSERT_EQ(result.steps.size(), n);
    std::vector<double> durations_ns;
    for (const Step& step : result.steps) {
      durations_ns.push_back(static_cast<double>(step.duration_ns()));
    }
    const std::vector<bool> flags = flags_of(result);
    EXPECT_EQ(flags, reference_outliers(durations_ns)) << "size " << n;
    flagged += static_cast<int>(std::count(flags.begin(), flags.end(), true));
  }
  EXPECT_GT(flagged, 0);  // the spikes are found, so the comparison covers both answers
}

TEST(StepOutliers, TwentyThousandStepsAreFlagged) {
  // Copying and sorting the others for each step took minutes at this size.
  constexpr std::size_t kSteps = 20'000;
  constexpr std::size_t kSlow = 12'345;
  std::vector<double> durations;
  for (std::size_t i = 0; i < kSteps; ++i) durations.push_back(1000.0 + static_cast<double>(i % 7));
  durations[kSlow] = 5000;
  const StepsResult result = steps_of(durations);
  ASSERT_EQ(result.steps.size(), kSteps);
  std::vector<std::size_t> outliers;
  for (std::size_t i = 0; i < kSteps; ++i) {
    if (result.steps[i].outlier) outliers.push_back(i);
  }
  EXPECT_EQ(outliers, std::vector<std::size_t>{kSlow});
}

}  // namespace
}  // namespace stepscope
