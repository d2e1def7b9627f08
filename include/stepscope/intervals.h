// Interval algebra on half-open [start, end) time ranges in nanoseconds
// (docs/metrics/00-conventions-for-every-figure.md §0.3). An IntervalSet is always sorted and
// merged: overlapping or touching intervals become one.
#pragma once

#include <cstdint>
#include <vector>

namespace stepscope {

struct Interval {
  std::int64_t start = 0;
  std::int64_t end = 0;
  [[nodiscard]] std::int64_t length() const { return end - start; }
  bool operator==(const Interval&) const = default;
};

class IntervalSet {
 public:
  IntervalSet() = default;
  // Sorts and merges; empty intervals (end <= start) are dropped.
  static IntervalSet from_unsorted(std::vector<Interval> intervals);
  // Merges intervals expected sorted by start, in one pass; input found out of order (a caller
  // relying on an order the trace did not keep) is sorted first, so the set is right either way.
  static IntervalSet from_sorted(const std::vector<Interval>& intervals);

  [[nodiscard]] const std::vector<Interval>& intervals() const { return intervals_; }
  [[nodiscard]] bool empty() const { return intervals_.empty(); }
  // |X|: the total length.
  [[nodiscard]] std::int64_t measure() const;
  [[nodiscard]] IntervalSet unite(const IntervalSet& other) const;
  [[nodiscard]] IntervalSet intersect(const IntervalSet& other) const;
  [[nodiscard]] IntervalSet subtract(const IntervalSet& other) const;
  [[nodiscard]] IntervalSet clip(Interval window) const;
  // |X ∩ window| without building the set.
  [[nodiscard]] std::int64_t measure_within(Interval window) const;

 private:
  std::vector<Interval> intervals_;
};

}  // namespace stepscope
