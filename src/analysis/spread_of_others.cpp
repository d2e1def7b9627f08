#include "analysis/spread_of_others.h"

#include <algorithm>
#include <cmath>

namespace stepscope {

namespace {

// The sorted values with one left out, read in place.
class Others {
 public:
  Others(const std::vector<double>& sorted, std::size_t left_out)
      : sorted_(sorted), left_out_(left_out) {}

  [[nodiscard]] std::size_t size() const { return sorted_.size() - 1; }
  [[nodiscard]] double operator[](std::size_t k) const {
    return sorted_[k < left_out_ ? k : k + 1];
  }
  // How many of the others are <= value.
  [[nodiscard]] std::size_t count_at_most(double value) const {
    const auto end = std::upper_bound(sorted_.begin(), sorted_.end(), value);
    const auto count = static_cast<std::size_t>(end - sorted_.begin());
    return left_out_ < count ? count - 1 : count;
  }

 private:
  const std::vector<double>& sorted_;
  std::size_t left_out_;
};

// The middle element, or the mean of the two middle ones, of an ascending sequence of `count`
// values: the arithmetic of sorting and indexing, so the double is the same.
template <typename KthSmallest>
double middle(std::size_t count, KthSmallest kth) {
  const std::size_t half = count / 2;
  return count % 2 == 1 ? kth(half) : (kth(half - 1) + kth(half)) / 2.0;
}

// The least i in [first, last) for which the monotone `too_small(i)` is false, else last.
template <typename Predicate>
std::size_t least_not(std::size_t first, std::size_t last, Predicate too_small) {
  while (first < last) {
    const std::size_t probe = first + (last - first) / 2;
    if (too_small(probe)) {
      first = probe + 1;
    } else {
      last = probe;
    }
  }
  return first;
}

// The deviations |x - center| of the others, as two ascending sequences: the values <= center
// read downwards from the split, and those above it read upwards. Rounding is monotone, so each
// stays sorted in the doubles themselves.
class Deviations {
 public:
  Deviations(const Others& others, double center)
      : others_(others), center_(center), split_(others.count_at_most(center)) {}

  [[nodiscard]] double kth_smallest(std::size_t k) const {
    // Take i from below and k + 1 - i from above, for the least i whose next one below is not
    // smaller than the last one taken from above.
    const std::size_t above_count = others_.size() - split_;
    const std::size_t first = k + 1 > above_count ? k + 1 - above_count : 0;
    const std::size_t last = std::min(k + 1, split_);
    const std::size_t from_below =
        least_not(first, last, [&](std::size_t i) { return below(i) < above(k - i); });
    const std::size_t from_above = k + 1 - from_below;
    if (from_below == 0) return above(from_above - 1);
    if (from_above == 0) return below(from_below - 1);
    return std::max(below(from_below - 1), above(from_above - 1));
  }

 private:
  // The t-th smallest deviation among the values <= center, and among those above it.
  [[nodiscard]] double below(std::size_t t) const {
    return std::fabs(others_[split_ - 1 - t] - center_);
  }
  [[nodiscard]] double above(std::size_t t) const {
    return std::fabs(others_[split_ + t] - center_);
  }

  const Others& others_;
  double center_;
  std::size_t split_;
};

}  // namespace

SpreadOfOthers spread_of_others(const std::vector<double>& sorted, std::size_t left_out) {
  const Others others(sorted, left_out);
  const std::size_t count = others.size();
  const double center = middle(count, [&](std::size_t k) { return others[k]; });
  const Deviations deviations(others, center);
  const double mad = middle(count, [&](std::size_t k) { return deviations.kth_smallest(k); });
  return {center, mad};
}

}  // namespace stepscope
