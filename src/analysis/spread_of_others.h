// The median of all values but one, and their median absolute deviation around it
// (docs/metrics/02-step-time-statistics.md §2), from values sorted once: O(log n) per value left
// out instead of copying and sorting the others.
#pragma once

#include <cstddef>
#include <vector>

namespace stepscope {

struct SpreadOfOthers {
  double median = 0;
  double mad = 0;  // median of |x - median| over the same values
};

// The same doubles as sorting the others and taking the middle element (odd count) or
// (lower + upper) / 2.0 (even count), for both figures. `sorted` is ascending with at least two
// values; `left_out` is the position of the one left out.
[[nodiscard]] SpreadOfOthers spread_of_others(const std::vector<double>& sorted,
                                              std::size_t left_out);

}  // namespace stepscope
