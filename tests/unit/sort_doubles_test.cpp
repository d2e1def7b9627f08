// sort_doubles gives the array std::sort gives, bit for bit, on both of its paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "analysis/sort_doubles.h"

namespace stepscope {
namespace {

void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a[i]), std::bit_cast<std::uint64_t>(b[i])) << i;
  }
}

// Launch delays and durations: integer nanoseconds, negative ones included, with repeats.
std::vector<double> nanosecond_samples(std::size_t n) {
  std::mt19937_64 random(7);
  std::uniform_int_distribution<std::int64_t> ns(-50'000, 5'000'000'000);
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t multiple_of_7 = ns(random) / 7 * 7;  // integer division intended
    values.push_back(static_cast<double>(multiple_of_7));
  }
  return values;
}

TEST(SortDoubles, ManyValuesSortAsStdSortDoes) {
  std::vector<double> values = nanosecond_samples(50'000);
  values.push_back(0.0);
  values.push_back(std::numeric_limits<double>::max());
  values.push_back(-std::numeric_limits<double>::max());
  values.push_back(std::numeric_limits<double>::denorm_min());
  values.push_back(-0.5);
  std::vector<double> expected = values;
  std::sort(expected.begin(), expected.end());
  sort_doubles(values);
  expect_same_bits(values, expected);
  EXPECT_TRUE(std::is_sorted(values.begin(), values.end()));
}

TEST(SortDoubles, FewValuesAndNegativeZeroStillSort) {
  std::vector<double> few = {3.0, -1.0, 2.5, 0.0};
  sort_doubles(few);
  expect_same_bits(few, {-1.0, 0.0, 2.5, 3.0});
  std::vector<double> with_negative_zero = nanosecond_samples(10'000);
  with_negative_zero.push_back(-0.0);
  std::vector<double> expected = with_negative_zero;
  std::sort(expected.begin(), expected.end());
  sort_doubles(with_negative_zero);
  expect_same_bits(with_negative_zero, expected);
}

TEST(SortDoubles, ValuesThatShareHighDigitsSort) {
  std::vector<double> values;
  for (int i = 9'999; i >= 0; --i) values.push_back(1e9 + static_cast<double>(i));
  sort_doubles(values);
  ASSERT_EQ(values.size(), 10'000U);
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i], 1e9 + static_cast<double>(i));
  }
}

}  // namespace
}  // namespace stepscope
