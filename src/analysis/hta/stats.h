// The pandas statistics HTA's tables use: sample std (n − 1), linear-interpolation quantiles and
// numpy-style rounding to decimals.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace stepscope::hta {

// Count, sum, extremes and a numerically stable (Welford) variance of integer samples.
struct Accumulator {
  std::int64_t count = 0;
  std::int64_t sum = 0;
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = std::numeric_limits<std::int64_t>::min();
  double mean = 0;
  double m2 = 0;

  void add(std::int64_t value);
  // pandas `std`: sample standard deviation, NaN (reported as 0 by HTA's fillna) for one sample.
  [[nodiscard]] double sample_std() const;
};

// pandas `Series.quantile` default: linear interpolation between order statistics of `sorted`.
double quantile_of_sorted(const std::vector<double>& sorted, double p);

// numpy `round(x, decimals)`: scale, round half to even, unscale (what pandas' round does).
double round_to(double value, int decimals);

}  // namespace stepscope::hta
