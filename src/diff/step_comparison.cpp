// Step time before and after: the sample of each side, the bootstrap interval of the ratio of
// means, and the verdict.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "diff/diff_parts.h"

namespace stepscope::diff {

namespace {

double mean_of(const std::vector<std::int64_t>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (const std::int64_t v : values) sum += static_cast<double>(v);
  return sum / static_cast<double>(values.size());
}

double median_of(std::vector<std::int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n % 2 == 1) return static_cast<double>(values[n / 2]);
  return (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2;
}

// Linear-interpolation quantile of sorted values (numpy's default).
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

double resampled_mean(const std::vector<std::int64_t>& values, SplitMix64& random) {
  double sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    sum += static_cast<double>(values[random.below(values.size())]);
  }
  return sum / static_cast<double>(values.size());
}

}  // namespace

StepSample step_sample(const Report& report) {
  StepSample sample;
  sample.ranks = report.ranks.size();
  if (report.ranks.size() == 1) {
    for (const Step* step : report.ranks[0].analyses.steps.kept()) {
      sample.durations_ns.push_back(step->duration_ns());
    }
    sample.source = "kept steps of the one rank";
    return sample;
  }
  // Step number -> (ranks that kept it, slowest duration).
  std::map<std::int64_t, std::pair<std::size_t, std::int64_t>> by_number;
  for (const RankReport& rank : report.ranks) {
    for (const Step* step : rank.analyses.steps.kept()) {
      auto& [ranks, slowest] = by_number[step->number];
      ++ranks;
      slowest = std::max(slowest, step->duration_ns());
    }
  }
  for (const auto& [number, entry] : by_number) {
    if (entry.first == report.ranks.size()) sample.durations_ns.push_back(entry.second);
  }
  sample.source = "per step number kept on every rank, the slowest rank's duration";
  return sample;
}

StepComparison compare_steps(StepSample before, StepSample after, const DiffOptions& options) {
  StepComparison c;
  c.resamples = std::max(options.resamples, 1);
  c.seed = options.seed;
  c.before_mean_ns = mean_of(before.durations_ns);
  c.after_mean_ns = mean_of(after.durations_ns);
  c.before_median_ns = median_of(before.durations_ns);
  c.after_median_ns = median_of(after.durations_ns);
  c.change_ns = c.after_mean_ns - c.before_mean_ns;
  c.before = std::move(before);
  c.after = std::move(after);
  if (c.before.durations_ns.size() < 2 || c.after.durations_ns.size() < 2) {
    c.verdict = Verdict::kUndetermined;
    c.reason = "fewer than 2 kept steps on a side (before " +
               std::to_string(c.before.durations_ns.size()) + ", after " +
               std::to_string(c.after.durations_ns.size()) + ")";
    if (c.before_mean_ns > 0) {
      c.change_share = c.change_ns / c.before_mean_ns;
      c.ratio = c.after_mean_ns / c.before_mean_ns;
    }
    return c;
  }
  if (c.before_mean_ns <= 0) {
    c.verdict = Verdict::kUndetermined;
    c.reason = "the before run's mean step time is zero";
    return c;
  }
  c.change_share = c.change_ns / c.before_mean_ns;
  c.ratio = c.after_mean_ns / c.before_mean_ns;
  SplitMix64 random(options.seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(c.resamples));
  for (int r = 0; r < c.resamples; ++r) {
    const double before_mean = resampled_mean(c.before.durations_ns, random);
    const double after_mean = resampled_mean(c.after.durations_ns, random);
    // A resample of zero-length steps has no ratio; it counts as "no faster, no slower".
    ratios.push_back(before_mean > 0 ? after_mean / before_mean : 1.0);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - c.confidence) / 2;
  c.ratio_low = quantile(ratios, tail);
  c.ratio_high = quantile(ratios, 1 - tail);
  if (c.ratio_high < 1) {
    c.verdict = Verdict::kFaster;
  } else if (c.ratio_low > 1) {
    c.verdict = Verdict::kSlower;
  } else {
    c.verdict = Verdict::kNoSignificantChange;
  }
  return c;
}

}  // namespace stepscope::diff
