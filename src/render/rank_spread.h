// Many ranks in few lines: the spread of the per-rank figures, the slowest and fastest ranks,
// the outliers by a robust threshold, and consecutive rank ranges for tables and heat maps that
// must not grow with the job. Shared by the terminal and the HTML job reports.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "stepscope/job/job_analysis.h"

namespace stepscope::render {

// An outlier lies beyond median + kOutlierMads × MAD (median absolute deviation over the ranks),
// and at least kOutlierFloorShare of the median and kOutlierFloorNs away from it, so that ranks
// all equal but for noise yield none.
inline constexpr double kOutlierMads = 5.0;
inline constexpr double kOutlierFloorShare = 0.05;
inline constexpr double kOutlierFloorNs = 50'000.0;

struct Spread {
  double min = 0;
  double p50 = 0;
  double p95 = 0;
  double max = 0;
};

// A per-rank figure (ns per step) as RankRow holds it, with the way it may stray.
struct RankMetric {
  const char* label;  // "step p50", "compute", ...
  double job::RankRow::*field;
  bool high_is_outlier;  // true: a rank above the others; false: below (a rank nobody waits on)
};

// step p50, compute, exposed communication, wait, idle: the figures the reports spread.
const std::vector<RankMetric>& rank_metrics();

Spread spread_of(std::span<const job::RankRow> ranks, double job::RankRow::*field);

// The `count` ranks that compute longest per step (slowest) and shortest (fastest, none of the
// slowest), ties by step p50 then rank. Compute, not step time: ranks that meet at collectives
// share one step time, and the one the others wait for differs in its own work.
struct ExtremeRanks {
  std::vector<const job::RankRow*> slowest;
  std::vector<const job::RankRow*> fastest;
};
ExtremeRanks extreme_ranks(const std::vector<job::RankRow>& ranks, std::size_t count);

struct RankOutlier {
  const job::RankRow* row = nullptr;
  std::vector<std::string> reasons;  // "compute 3.02 ms (median 1.00 ms)", one per metric
  double excess = 0;                 // largest distance beyond the threshold over metrics, ns
};

// Ranks beyond the robust threshold in any metric, the farthest first.
std::vector<RankOutlier> rank_outliers(const std::vector<job::RankRow>& ranks);

// The threshold in words, stated once where the outliers are listed.
std::string outlier_rule();

// `count` items as at most `max_groups` ranges [first, last] of consecutive positions, of equal
// size but for the last.
struct IndexRange {
  std::size_t first = 0;
  std::size_t last = 0;  // inclusive
};
std::vector<IndexRange> consecutive_groups(std::size_t count, std::size_t max_groups);

}  // namespace stepscope::render
