#include "trace/time_order.h"

#include <algorithm>
#include <numeric>
#include <queue>
#include <span>

#include "concurrency/parallel_for.h"

namespace stepscope {

namespace {

// The stored order as a strict total order: time order, then file order. Any two events compare
// unequal, so every merge and sort below has one possible result, the stable sort's.
class Before {
 public:
  Before(std::span<const std::int64_t> start_ns, std::span<const std::int64_t> dur_ns)
      : start_ns_(start_ns), dur_ns_(dur_ns) {}
  bool operator()(EventIndex a, EventIndex b) const {
    const auto i = static_cast<std::size_t>(a);
    const auto j = static_cast<std::size_t>(b);
    if (start_ns_[i] != start_ns_[j]) return start_ns_[i] < start_ns_[j];
    if (dur_ns_[i] != dur_ns_[j]) return dur_ns_[i] > dur_ns_[j];
    return a < b;
  }

 private:
  std::span<const std::int64_t> start_ns_;
  std::span<const std::int64_t> dur_ns_;
};

// An event's sequence.
class SequenceOf {
 public:
  SequenceOf(std::span<const std::uint32_t> sequences, std::size_t events) : sequences_(sequences) {
    count_ = sequences.empty()
                 ? 0
                 : std::size_t{*std::max_element(sequences.begin(), sequences.end())} + 1;
    usable_ = sequences.size() == events && count_ <= kMostSequences;
  }
  // False when the numbering does not cover the events: they are then sorted as one.
  [[nodiscard]] bool usable() const { return usable_; }
  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] std::size_t operator()(std::size_t event) const { return sequences_[event]; }

 private:
  // Thread indices are dense; a numbering far sparser than that is not worth a count per value.
  static constexpr std::size_t kMostSequences = std::size_t{1} << 20;
  std::span<const std::uint32_t> sequences_;
  std::size_t count_ = 0;
  bool usable_ = false;
};

// Merges the sorted [left, left_end) and [right, right_end) into `out`, which may be
// `right - (left_end - left)` (the two ranges adjacent, left's copied aside): writing never
// overtakes reading there, and right's tail is then already in place.
void merge_into(const EventIndex* left, const EventIndex* left_end, const EventIndex* right,
                const EventIndex* right_end, EventIndex* out, const Before& before) {
  while (left != left_end && right != right_end) {
    if (before(*right, *left)) {
      *out++ = *right++;
    } else {
      *out++ = *left++;
    }
  }
  out = std::copy(left, left_end, out);
  if (out != right) std::copy(right, right_end, out);
}

// Merges the sorted s[0, middle) and s[middle, end) in place, moving only where they overlap
// (a late event written after many others moves only those it precedes). Returns how many
// events it moved.
std::size_t merge_with_prefix(std::span<EventIndex> s, std::size_t middle, std::size_t end,
                              const Before& before, std::vector<EventIndex>& aside) {
  if (middle == 0 || !before(s[middle], s[middle - 1])) return 0;
  EventIndex* const begin = s.data();
  EventIndex* const left = std::upper_bound(begin, begin + middle, s[middle], before);
  EventIndex* const right_end =
      std::lower_bound(begin + middle, begin + end, s[middle - 1], before);
  aside.assign(left, begin + middle);
  merge_into(aside.data(), aside.data() + aside.size(), begin + middle, right_end, left, before);
  return aside.size() + static_cast<std::size_t>(right_end - (begin + middle));
}

// Sorts one sequence's events, given in file order. Runs in time order are extended by moving
// an event back a few places (events that end together are often written a little out of
// start order), and each run is merged into the sorted events before it. A sequence that needs
// more moving than a few passes' worth is sorted outright instead.
void sort_sequence(std::span<EventIndex> s, const Before& before, std::vector<EventIndex>& aside) {
  constexpr std::size_t kReach = 8;
  constexpr std::size_t kPassesBeforeSorting = 4;
  const std::size_t budget = kPassesBeforeSorting * s.size();
  std::size_t moved = 0;
  std::size_t run_begin = 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const EventIndex event = s[i];
    if (!before(event, s[i - 1])) continue;
    std::size_t place = i - 1;
    while (place > run_begin && i - place < kReach && before(event, s[place - 1])) --place;
    if (place == run_begin || !before(event, s[place - 1])) {
      std::move_backward(s.begin() + static_cast<std::ptrdiff_t>(place),
                         s.begin() + static_cast<std::ptrdiff_t>(i),
                         s.begin() + static_cast<std::ptrdiff_t>(i + 1));
      s[place] = event;
      continue;
    }
    moved += merge_with_prefix(s, run_begin, i, before, aside);
    if (moved > budget) {
      std::sort(s.begin(), s.end(), before);
      return;
    }
    run_begin = i;
  }
  merge_with_prefix(s, run_begin, s.size(), before, aside);
}

// Merges sorted pieces into one, always the two smallest first (as a Huffman code pairs its
// rarest symbols): each event is moved once per merge it takes part in, and a thread with few
// events joins the others without moving the large ones again and again.
std::vector<EventIndex> merge_pieces(std::vector<EventIndex> leaves,
                                     const std::vector<std::size_t>& bounds, const Before& before) {
  if (bounds.size() <= 2) return leaves;
  struct Piece {
    std::span<const EventIndex> events;
    std::size_t storage;  // index into `merged`, or kLeaf
  };
  constexpr std::size_t kLeaf = SIZE_MAX;
  const auto larger = [](const Piece& a, const Piece& b) {
    return a.events.size() > b.events.size();
  };
  std::priority_queue<Piece, std::vector<Piece>, decltype(larger)> pieces(larger);
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    pieces.push(Piece{
        std::span<const EventIndex>(leaves).subspan(bounds[k], bounds[k + 1] - bounds[k]), kLeaf});
  }
  std::vector<std::vector<EventIndex>> merged;
  const auto take = [&pieces]() {
    Piece piece = pieces.top();
    pieces.pop();
    return piece;
  };
  const auto release = [&merged](const Piece& piece) {
    if (piece.storage != kLeaf) std::vector<EventIndex>().swap(merged[piece.storage]);
  };
  while (pieces.size() > 1) {
    const Piece a = take();
    const Piece b = take();
    std::vector<EventIndex> both(a.events.size() + b.events.size());
    merge_into(a.events.data(), a.events.data() + a.events.size(), b.events.data(),
               b.events.data() + b.events.size(), both.data(), before);
    release(a);
    release(b);
    merged.push_back(std::move(both));
    pieces.push(Piece{merged.back(), merged.size() - 1});
  }
  return std::move(merged.back());  // the last merge's, which took every piece
}

// The events [first, first + n) in order.
std::vector<EventIndex> order_part(std::size_t first, std::size_t n, const SequenceOf& sequence_of,
                                   const Before& before) {
  if (!sequence_of.usable()) {
    std::vector<EventIndex> order(n);
    std::iota(order.begin(), order.end(), static_cast<EventIndex>(first));
    std::sort(order.begin(), order.end(), before);
    return order;
  }
  // The events grouped by sequence, in file order within each (a counting sort).
  std::vector<std::size_t> starts(sequence_of.count() + 1, 0);
  for (std::size_t i = first; i < first + n; ++i) ++starts[sequence_of(i) + 1];
  std::partial_sum(starts.begin(), starts.end(), starts.begin());
  std::vector<EventIndex> grouped(n);
  {
    std::vector<std::size_t> next(starts.begin(), starts.end() - 1);
    for (std::size_t i = first; i < first + n; ++i) {
      grouped[next[sequence_of(i)]++] = static_cast<EventIndex>(i);
    }
  }
  std::vector<EventIndex> aside;
  std::vector<std::size_t> bounds{0};
  for (std::size_t g = 0; g + 1 < starts.size(); ++g) {
    if (starts[g + 1] == starts[g]) continue;
    sort_sequence(std::span<EventIndex>(grouped).subspan(starts[g], starts[g + 1] - starts[g]),
                  before, aside);
    bounds.push_back(starts[g + 1]);
  }
  return merge_pieces(std::move(grouped), bounds, before);
}

// How many of the first `count` elements that merging `first` and `second` writes come from
// `first`, found by a binary search: its element at `i` goes before the second range's element
// at `count - i - 1` exactly for every `i` below the answer.
std::size_t merge_split(std::span<const EventIndex> first, std::span<const EventIndex> second,
                        std::size_t count, const Before& before) {
  std::size_t low = count > second.size() ? count - second.size() : 0;
  std::size_t high = std::min(count, first.size());
  while (low < high) {
    const std::size_t i = low + (high - low) / 2;
    if (before(first[i], second[count - i - 1])) {
      low = i + 1;
    } else {
      high = i;
    }
  }
  return low;
}

}  // namespace

// With two threads each half of the events (in file order) is ordered on its own thread, and
// the halves merged on both: the first half of the output is a prefix of each ordered half,
// found by a binary search.
std::vector<EventIndex> time_order(std::span<const std::int64_t> start_ns,
                                   std::span<const std::int64_t> dur_ns,
                                   std::span<const std::uint32_t> sequences, unsigned threads) {
  const Before before(start_ns, dur_ns);
  const SequenceOf sequence_of(sequences, start_ns.size());
  const std::size_t n = start_ns.size();
  if (threads < 2 || n < 2) return order_part(0, n, sequence_of, before);
  const std::size_t half_size = n / 2;  // the inputs' split and the output's
  std::vector<EventIndex> halves[2];
  parallel_for(2, 2, [&](std::size_t half) {
    halves[half] = half == 0 ? order_part(0, half_size, sequence_of, before)
                             : order_part(half_size, n - half_size, sequence_of, before);
  });
  const std::span<const EventIndex> first(halves[0]);
  const std::span<const EventIndex> second(halves[1]);
  const std::size_t from_first = merge_split(first, second, half_size, before);
  const std::size_t from_second = half_size - from_first;
  std::vector<EventIndex> merged(n);
  parallel_for(2, 2, [&](std::size_t half) {
    if (half == 0) {
      merge_into(first.data(), first.data() + from_first, second.data(),
                 second.data() + from_second, merged.data(), before);
    } else {
      merge_into(first.data() + from_first, first.data() + first.size(),
                 second.data() + from_second, second.data() + second.size(),
                 merged.data() + half_size, before);
    }
  });
  return merged;
}

}  // namespace stepscope
