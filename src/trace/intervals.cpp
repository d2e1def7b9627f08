#include "stepscope/intervals.h"

#include <algorithm>
#include <limits>

namespace stepscope {

IntervalSet IntervalSet::from_unsorted(std::vector<Interval> intervals) {
  const auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  // Callers mostly gather intervals in event order, which is start order: one pass checks it.
  if (!std::is_sorted(intervals.begin(), intervals.end(), by_start)) {
    std::sort(intervals.begin(), intervals.end(), by_start);
  }
  return from_sorted(intervals);
}

IntervalSet IntervalSet::from_sorted(const std::vector<Interval>& intervals) {
  IntervalSet set;
  std::int64_t previous_start = std::numeric_limits<std::int64_t>::min();
  for (const Interval& interval : intervals) {
    if (interval.end <= interval.start) continue;
    if (interval.start < previous_start) return from_unsorted(intervals);
    previous_start = interval.start;
    if (!set.intervals_.empty() && interval.start <= set.intervals_.back().end) {
      set.intervals_.back().end = std::max(set.intervals_.back().end, interval.end);
    } else {
      set.intervals_.push_back(interval);
    }
  }
  return set;
}

std::int64_t IntervalSet::measure() const {
  std::int64_t total = 0;
  for (const Interval& interval : intervals_) total += interval.length();
  return total;
}

IntervalSet IntervalSet::unite(const IntervalSet& other) const {
  std::vector<Interval> merged;
  merged.reserve(intervals_.size() + other.intervals_.size());
  std::merge(intervals_.begin(), intervals_.end(), other.intervals_.begin(), other.intervals_.end(),
             std::back_inserter(merged),
             [](const Interval& a, const Interval& b) { return a.start < b.start; });
  return from_sorted(merged);
}

IntervalSet IntervalSet::intersect(const IntervalSet& other) const {
  IntervalSet result;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < intervals_.size() && j < other.intervals_.size()) {
    const Interval& a = intervals_[i];
    const Interval& b = other.intervals_[j];
    const std::int64_t start = std::max(a.start, b.start);
    const std::int64_t end = std::min(a.end, b.end);
    if (start < end) result.intervals_.push_back({start, end});
    if (a.end < b.end) {
      ++i;
    } else {
      ++j;
    }
  }
  return result;
}

IntervalSet IntervalSet::subtract(const IntervalSet& other) const {
  IntervalSet result;
  std::size_t j = 0;
  for (Interval piece : intervals_) {
    while (j < other.intervals_.size() && other.intervals_[j].end <= piece.start) ++j;
    std::size_t k = j;
    while (k < other.intervals_.size() && other.intervals_[k].start < piece.end) {
      const Interval& cut = other.intervals_[k];
      if (cut.start > piece.start) result.intervals_.push_back({piece.start, cut.start});
      piece.start = std::max(piece.start, cut.end);
      if (piece.start >= piece.end) break;
      ++k;
    }
    if (piece.start < piece.end) result.intervals_.push_back(piece);
  }
  return result;
}

IntervalSet IntervalSet::clip(Interval window) const {
  IntervalSet result;
  for (const Interval& interval : intervals_) {
    const std::int64_t start = std::max(interval.start, window.start);
    const std::int64_t end = std::min(interval.end, window.end);
    if (start < end) result.intervals_.push_back({start, end});
  }
  return result;
}

std::int64_t IntervalSet::measure_within(Interval window) const {
  std::int64_t total = 0;
  auto first = std::lower_bound(intervals_.begin(), intervals_.end(), window.start,
                                [](const Interval& a, std::int64_t t) { return a.end <= t; });
  for (auto it = first; it != intervals_.end() && it->start < window.end; ++it) {
    total += std::min(it->end, window.end) - std::max(it->start, window.start);
  }
  return total;
}

}  // namespace stepscope
