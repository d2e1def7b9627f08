#include "importers/kineto/time_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace stepscope::kineto {
namespace {

std::vector<EventIndex> reference_order(const std::vector<std::int64_t>& start,
                                        const std::vector<std::int64_t>& dur) {
  std::vector<EventIndex> order(start.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](EventIndex a, EventIndex b) {
    if (start[a] != start[b]) return start[a] < start[b];
    return dur[a] > dur[b];
  });
  return order;
}

// Starts drawn from a small range (many ties), durations from a smaller one (ties on both).
void expect_reference_order(std::int64_t base, std::int64_t spread, std::size_t events) {
  std::mt19937_64 random(42);
  std::vector<std::int64_t> start(events);
  std::vector<std::int64_t> dur(events);
  for (std::size_t i = 0; i < events; ++i) {
    start[i] = base + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spread));
    dur[i] = static_cast<std::int64_t>(random() % 4);
  }
  const std::vector<EventIndex> expected = reference_order(start, dur);
  for (unsigned threads : {1U, 2U}) {
    EXPECT_EQ(time_order(start, dur, threads), expected)
        << "base " << base << ", spread " << spread << ", " << threads << " threads";
  }
}

TEST(TimeOrder, MatchesAStableSortByStartThenLongerFirst) {
  expect_reference_order(0, 1, 1000);                           // every start equal
  expect_reference_order(1'661'203'462'598'738'000, 50, 5000);  // epoch ns, dense ties
  expect_reference_order(-1'000'000, 3'000'000'000, 100'000);   // negative starts
}

TEST(TimeOrder, ExtremeStartsSort) {
  const std::vector<std::int64_t> start = {std::numeric_limits<std::int64_t>::max(), 5,
                                           std::numeric_limits<std::int64_t>::min(), 5, 5};
  const std::vector<std::int64_t> dur = {1, 2, 3, 7, 2};
  for (unsigned threads : {1U, 2U}) {
    EXPECT_EQ(time_order(start, dur, threads), reference_order(start, dur));
  }
}

// Two threads sort the halves and split the merge between them: every size, odd and even, and
// halves that interleave or that do not overlap at all must give the one-thread order.
TEST(TimeOrder, TwoThreadsAgreeAtEverySmallSizeAndShape) {
  std::mt19937_64 random(7);
  for (std::size_t events = 1; events <= 64; ++events) {
    for (int shape = 0; shape < 3; ++shape) {
      std::vector<std::int64_t> start(events);
      std::vector<std::int64_t> dur(events);
      for (std::size_t i = 0; i < events; ++i) {
        const auto index = static_cast<std::int64_t>(i);
        start[i] = shape == 0   ? static_cast<std::int64_t>(random() % 3)  // ties everywhere
                   : shape == 1 ? index                                    // already in order
                                : -index;                                  // reversed
        dur[i] = static_cast<std::int64_t>(random() % 2);
      }
      ASSERT_EQ(time_order(start, dur, 2), reference_order(start, dur))
          << events << " events, shape " << shape;
    }
  }
}

TEST(TimeOrder, NoEventsNoOrder) { EXPECT_TRUE(time_order({}, {}, 2).empty()); }

}  // namespace
}  // namespace stepscope::kineto
