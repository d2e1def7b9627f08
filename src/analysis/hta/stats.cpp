#include "analysis/hta/stats.h"

#include <algorithm>
#include <cmath>

namespace stepscope::hta {

void Accumulator::add(std::int64_t value) {
  ++count;
  sum += value;
  min = std::min(min, value);
  max = std::max(max, value);
  const double delta = static_cast<double>(value) - mean;
  mean += delta / static_cast<double>(count);
  m2 += delta * (static_cast<double>(value) - mean);
}

double Accumulator::sample_std() const {
  if (count < 2) return 0;
  return std::sqrt(std::max(m2, 0.0) / static_cast<double>(count - 1));
}

double quantile_of_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto low = static_cast<std::size_t>(std::floor(h));
  const std::size_t high = std::min(low + 1, sorted.size() - 1);
  return sorted[low] + (h - static_cast<double>(low)) * (sorted[high] - sorted[low]);
}

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::nearbyint(value * scale) / scale;
}

}  // namespace stepscope::hta
