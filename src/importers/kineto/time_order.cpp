#include "importers/kineto/time_order.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <utility>

#include "concurrency/parallel_for.h"

namespace stepscope::kineto {

namespace {

constexpr int kDigitBits = 11;
constexpr std::size_t kBuckets = std::size_t{1} << kDigitBits;

struct Columns {
  std::span<const std::int64_t> start;
  std::span<const std::int64_t> dur;
  [[nodiscard]] bool earlier(EventIndex a, EventIndex b) const {
    const auto i = static_cast<std::size_t>(a);
    const auto j = static_cast<std::size_t>(b);
    if (start[i] != start[j]) return start[i] < start[j];
    return dur[i] > dur[j];
  }
};

// A comparison sort, each half on its own thread where two are given, the halves merged (the
// merge takes from the first half on ties, so the order is stable).
std::vector<EventIndex> compared_order(const Columns& c, unsigned threads) {
  std::vector<EventIndex> order(c.start.size());
  std::iota(order.begin(), order.end(), 0);
  const auto earlier = [&c](EventIndex a, EventIndex b) { return c.earlier(a, b); };
  if (threads < 2 || order.size() < 2) {
    std::stable_sort(order.begin(), order.end(), earlier);
    return order;
  }
  const auto middle = order.begin() + static_cast<std::ptrdiff_t>(order.size() / 2);
  parallel_for(2, 2, [&](std::size_t half) {
    if (half == 0) {
      std::stable_sort(order.begin(), middle, earlier);
    } else {
      std::stable_sort(middle, order.end(), earlier);
    }
  });
  std::vector<EventIndex> merged(order.size());
  std::merge(order.begin(), middle, middle, order.end(), merged.begin(), earlier);
  return merged;
}

// One stable counting pass on the digit `shift` bits up.
void radix_pass(std::vector<std::uint64_t>& from, std::vector<std::uint64_t>& to, int shift) {
  std::array<std::size_t, kBuckets> count{};
  for (const std::uint64_t v : from) ++count[(v >> shift) & (kBuckets - 1)];
  std::size_t at = 0;
  for (std::size_t& c : count) at += std::exchange(c, at);
  for (const std::uint64_t v : from) to[count[(v >> shift) & (kBuckets - 1)]++] = v;
  from.swap(to);
}

// Each event as one word, its start offset above its index: a stable radix sort over the
// offset bits alone keeps equal starts in index (file) order. Empty when the two do not fit in
// 64 bits (a trace of hours at nanosecond resolution).
std::vector<std::uint64_t> radix_sorted_starts(std::span<const std::int64_t> start) {
  const auto [low, high] = std::minmax_element(start.begin(), start.end());
  const auto range = static_cast<std::uint64_t>(*high) - static_cast<std::uint64_t>(*low);
  const int index_bits = std::bit_width(static_cast<std::uint64_t>(start.size()));
  const int offset_bits = std::bit_width(range);
  if (index_bits + offset_bits > 64) return {};
  std::vector<std::uint64_t> words(start.size());
  for (std::size_t i = 0; i < start.size(); ++i) {
    const auto offset = static_cast<std::uint64_t>(start[i]) - static_cast<std::uint64_t>(*low);
    words[i] = (offset << index_bits) | i;
  }
  std::vector<std::uint64_t> scratch(words.size());
  for (int done = 0; done < offset_bits; done += kDigitBits) {
    radix_pass(words, scratch, index_bits + done);
  }
  return words;
}

}  // namespace

std::vector<EventIndex> time_order(std::span<const std::int64_t> start_ns,
                                   std::span<const std::int64_t> dur_ns, unsigned threads) {
  const Columns columns{start_ns, dur_ns};
  if (start_ns.empty()) return {};
  std::vector<std::uint64_t> words = radix_sorted_starts(start_ns);
  if (words.empty()) return compared_order(columns, threads);
  const std::uint64_t index_mask =
      (std::uint64_t{1} << std::bit_width(static_cast<std::uint64_t>(start_ns.size()))) - 1;
  std::vector<EventIndex> order(words.size());
  for (std::size_t k = 0; k < words.size(); ++k) {
    order[k] = static_cast<EventIndex>(words[k] & index_mask);
  }
  words = {};
  // Equal starts are in file order: longer first among them (runs are a few events long).
  const auto earlier = [&columns](EventIndex a, EventIndex b) { return columns.earlier(a, b); };
  for (auto run = order.begin(); run != order.end();) {
    const std::int64_t start = start_ns[static_cast<std::size_t>(*run)];
    auto end = run + 1;
    while (end != order.end() && start_ns[static_cast<std::size_t>(*end)] == start) ++end;
    if (end - run > 1) std::stable_sort(run, end, earlier);
    run = end;
  }
  return order;
}

}  // namespace stepscope::kineto
