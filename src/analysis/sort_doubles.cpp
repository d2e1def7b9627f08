#include "analysis/sort_doubles.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace stepscope {

namespace {

// Below this many values a comparison sort is as fast as the radix passes' fixed cost.
constexpr std::size_t kMinRadix = 4096;
constexpr int kDigitBits = 11;
constexpr int kPasses = (64 + kDigitBits - 1) / kDigitBits;
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;
constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

// Maps doubles onto unsigned integers in the same order: negatives have all bits flipped (a
// larger magnitude is smaller), the others only the sign bit.
std::uint64_t key_of(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  return (bits & kSignBit) != 0 ? ~bits : bits | kSignBit;
}

double value_of(std::uint64_t key) {
  return std::bit_cast<double>((key & kSignBit) != 0 ? key & ~kSignBit : ~key);
}

std::size_t digit(std::uint64_t key, int pass) {
  return static_cast<std::size_t>(key >> (pass * kDigitBits)) & (kBuckets - 1);
}

// NaN has no place in the order, and -0.0 equals 0.0 where the radix order would put it first:
// with either, std::sort decides.
bool radix_orders_as_compare(const std::vector<double>& values) {
  return std::none_of(values.begin(), values.end(),
                      [](double v) { return std::isnan(v) || (v == 0 && std::signbit(v)); });
}

}  // namespace

void sort_doubles(std::vector<double>& values) {
  if (values.size() < kMinRadix || !radix_orders_as_compare(values)) {
    std::sort(values.begin(), values.end());
    return;
  }
  const std::size_t n = values.size();
  std::vector<std::uint64_t> keys(n);
  std::vector<std::array<std::size_t, kBuckets>> counts(kPasses);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = key_of(values[i]);
    for (int pass = 0; pass < kPasses; ++pass) ++counts[pass][digit(keys[i], pass)];
  }
  std::vector<std::uint64_t> spare(n);
  for (int pass = 0; pass < kPasses; ++pass) {
    std::array<std::size_t, kBuckets>& count = counts[pass];
    if (count[digit(keys[0], pass)] == n) continue;  // every key has this digit: nothing moves
    std::size_t next = 0;
    for (std::size_t& c : count) next += std::exchange(c, next);  // starts of the buckets
    for (const std::uint64_t key : keys) spare[count[digit(key, pass)]++] = key;
    keys.swap(spare);
  }
  for (std::size_t i = 0; i < n; ++i) values[i] = value_of(keys[i]);
}

}  // namespace stepscope
