// Many ranks in few lines: spread, slowest and fastest, outliers, rank ranges.
#include "render/rank_spread.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace stepscope::render {

namespace {

using job::RankRow;

// The value at quantile q of sorted values (nearest rank below).
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto at = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1));
  return sorted[std::min(at, sorted.size() - 1)];
}

std::vector<double> sorted_values(std::span<const RankRow> ranks, double RankRow::*field) {
  std::vector<double> values;
  values.reserve(ranks.size());
  for (const RankRow& r : ranks) values.push_back(r.*field);
  std::sort(values.begin(), values.end());
  return values;
}

std::string ms(double ns) { return fmt::format("{:.2f} ms", ns / 1e6); }

// Longest compute first; ties by longer step p50, then lower rank.
std::vector<const RankRow*> by_compute(const std::vector<RankRow>& ranks) {
  std::vector<const RankRow*> out;
  out.reserve(ranks.size());
  for (const RankRow& r : ranks) out.push_back(&r);
  std::sort(out.begin(), out.end(), [](const RankRow* a, const RankRow* b) {
    if (a->compute_ns != b->compute_ns) return a->compute_ns > b->compute_ns;
    if (a->step_p50_ns != b->step_p50_ns) return a->step_p50_ns > b->step_p50_ns;
    return a->rank < b->rank;
  });
  return out;
}

// How far beyond the median a rank must lie in one metric to be an outlier.
double threshold_distance(const std::vector<double>& sorted) {
  const double median = quantile(sorted, 0.5);
  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (const double v : sorted) deviations.push_back(std::abs(v - median));
  std::sort(deviations.begin(), deviations.end());
  const double mad = quantile(deviations, 0.5);
  return std::max({kOutlierMads * mad, kOutlierFloorShare * std::abs(median), kOutlierFloorNs});
}

}  // namespace

const std::vector<RankMetric>& rank_metrics() {
  static const std::vector<RankMetric> metrics = {
      {"step p50", &RankRow::step_p50_ns, true},
      {"compute", &RankRow::compute_ns, true},
      {"exposed comm", &RankRow::exposed_comm_ns, true},
      {"wait", &RankRow::wait_ns, false},
      {"idle", &RankRow::idle_ns, true},
  };
  return metrics;
}

Spread spread_of(std::span<const RankRow> ranks, double RankRow::*field) {
  const std::vector<double> sorted = sorted_values(ranks, field);
  if (sorted.empty()) return {};
  return {sorted.front(), quantile(sorted, 0.5), quantile(sorted, 0.95), sorted.back()};
}

ExtremeRanks extreme_ranks(const std::vector<RankRow>& ranks, std::size_t count) {
  const std::vector<const RankRow*> sorted = by_compute(ranks);
  ExtremeRanks out;
  const std::size_t slow = std::min(count, sorted.size());
  out.slowest.assign(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(slow));
  const std::size_t fast = std::min(count, sorted.size() - slow);
  out.fastest.assign(sorted.rbegin(), sorted.rbegin() + static_cast<std::ptrdiff_t>(fast));
  return out;
}

std::vector<RankOutlier> rank_outliers(const std::vector<RankRow>& ranks) {
  std::vector<RankOutlier> out(ranks.size());
  for (const RankMetric& metric : rank_metrics()) {
    const std::vector<double> sorted = sorted_values(ranks, metric.field);
    if (sorted.empty()) continue;
    const double median = quantile(sorted, 0.5);
    const double distance = threshold_distance(sorted);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const double value = ranks[i].*metric.field;
      const double beyond =
          metric.high_is_outlier ? value - (median + distance) : (median - distance) - value;
      if (beyond <= 0) continue;
      out[i].row = &ranks[i];
      out[i].reasons.push_back(
          fmt::format("{} {} (median {})", metric.label, ms(value), ms(median)));
      out[i].excess = std::max(out[i].excess, beyond);
    }
  }
  std::erase_if(out, [](const RankOutlier& o) { return o.row == nullptr; });
  std::sort(out.begin(), out.end(), [](const RankOutlier& a, const RankOutlier& b) {
    return a.excess != b.excess ? a.excess > b.excess : a.row->rank < b.row->rank;
  });
  return out;
}

std::string outlier_rule() {
  return fmt::format(
      "above median + {0:g} × MAD over the ranks, wait below median − {0:g} × MAD, and at least "
      "{1:g} % of the median and {2:g} ms from it",
      kOutlierMads, 100 * kOutlierFloorShare, kOutlierFloorNs / 1e6);
}

std::vector<IndexRange> consecutive_groups(std::size_t count, std::size_t max_groups) {
  std::vector<IndexRange> out;
  if (count == 0 || max_groups == 0) return out;
  const std::size_t size = (count + max_groups - 1) / max_groups;
  for (std::size_t first = 0; first < count; first += size) {
    out.push_back({first, std::min(first + size, count) - 1});
  }
  return out;
}

}  // namespace stepscope::render
