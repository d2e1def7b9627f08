#include "trace/time_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <vector>

namespace stepscope {
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
    EXPECT_EQ(time_order(start, dur, {}, threads), expected)
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
    EXPECT_EQ(time_order(start, dur, {}, threads), reference_order(start, dur));
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
      ASSERT_EQ(time_order(start, dur, {}, 2), reference_order(start, dur))
          << events << " events, shape " << shape;
    }
  }
}

// Events from a few threads, each thread's written nearly in time order the way a profiler
// writes them: mostly in order, some a few places late, one now and then far out of place.
struct ThreadedEvents {
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> dur;
  std::vector<std::uint32_t> thread;
};

ThreadedEvents threaded_events(std::size_t events, std::uint32_t threads, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  ThreadedEvents out;
  std::vector<std::int64_t> clock(threads, 0);
  for (std::size_t i = 0; i < events; ++i) {
    const auto t = static_cast<std::uint32_t>(random() % threads);
    clock[t] += static_cast<std::int64_t>(random() % 3);  // ties within a thread too
    std::int64_t start = clock[t];
    const std::uint64_t roll = random() % 100;
    if (roll < 10) start -= static_cast<std::int64_t>(random() % 6);     // a few places late
    if (roll == 99) start -= static_cast<std::int64_t>(random() % 500);  // far out of place
    out.start.push_back(start);
    out.dur.push_back(static_cast<std::int64_t>(random() % 3));
    out.thread.push_back(t);
  }
  return out;
}

// The threads guide the work but never the result: right ones, wrong ones, ones that stop
// short, and none, on one thread and on two.
TEST(TimeOrder, ThreadSequencesGiveTheSameOrder) {
  for (const std::uint32_t threads : {1U, 3U, 40U}) {
    for (const std::size_t events :
         {std::size_t{1}, std::size_t{2}, std::size_t{17}, std::size_t{5000}}) {
      const ThreadedEvents in = threaded_events(events, threads, 1000 + events + threads);
      const std::vector<EventIndex> expected = reference_order(in.start, in.dur);
      const std::span<const std::uint32_t> all(in.thread);
      std::vector<std::uint32_t> scrambled(in.thread.size());
      std::mt19937_64 random(threads);
      for (std::uint32_t& t : scrambled) t = static_cast<std::uint32_t>(random() % 7);
      const std::size_t split = events / 3;
      const std::span<const std::uint32_t> cases[] = {
          all,
          scrambled,
          all.first(split),  // too short: ignored
          {},
      };
      for (std::size_t c = 0; c < std::size(cases); ++c) {
        for (const unsigned workers : {1U, 2U}) {
          ASSERT_EQ(time_order(in.start, in.dur, cases[c], workers), expected)
              << events << " events on " << threads << " threads, case " << c << ", " << workers
              << " workers";
        }
      }
    }
  }
}

// A thread whose events come in reverse: past the moving budget the sequence is sorted outright,
// with the same result.
TEST(TimeOrder, AThreadInReverseStillSorts) {
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> dur;
  for (std::int64_t i = 0; i < 3000; ++i) {
    start.push_back(3000 - i / 2);
    dur.push_back(i % 2);
  }
  const std::vector<std::uint32_t> one_thread(start.size(), 0);
  for (const unsigned workers : {1U, 2U}) {
    EXPECT_EQ(time_order(start, dur, one_thread, workers), reference_order(start, dur));
  }
}

TEST(TimeOrder, NoEventsNoOrder) { EXPECT_TRUE(time_order({}, {}, {}, 2).empty()); }

}  // namespace
}  // namespace stepscope
