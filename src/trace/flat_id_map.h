// A map from non-negative 64-bit ids (correlation, External id) to event indices: the linker
// looks up millions of ids, and std::unordered_map's node per entry costs a cache miss each.
// Profilers hand out these ids from counters, so they usually fill most of a range: then the
// map is an array indexed by id, no larger than a hash table, and ids that rise with time
// are read and written in order. Ids spread wider take an open-addressing hash table.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

// The ids a map will hold: how many, and the least and greatest.
struct IdRange {
  std::size_t count = 0;
  std::int64_t min = 0;
  std::int64_t max = -1;
  void add(std::int64_t id) {
    min = count == 0 ? id : std::min(min, id);
    max = count == 0 ? id : std::max(max, id);
    ++count;
  }
};

class FlatIdMap {
 public:
  // An array when the ids fill at least an eighth of their range: 4 bytes per id in the range
  // is then no more than the hash table's 16 bytes per slot at a load of one half or less.
  static constexpr std::uint64_t kMaxSpreadForArray = 8;

  explicit FlatIdMap(const IdRange& expected = {});
  // Inserts if absent; returns a reference to the stored index either way. `id` >= 0.
  EventIndex& find_or_insert(std::int64_t id, EventIndex index);
  // The stored index, or kNoEvent.
  [[nodiscard]] EventIndex find(std::int64_t id) const;
  [[nodiscard]] bool is_array() const { return array_mode_; }
  // Starts loading the slot of `id` (ignored when negative): callers that know the ids to come
  // ask for them this many places ahead, so that the table's cache misses overlap.
  static constexpr std::size_t kLookAhead = 16;
  void prefetch(std::int64_t id) const {
    if (id < 0) return;
    if (array_mode_) {
      if (in_array(id)) __builtin_prefetch(&by_id_[static_cast<std::size_t>(id - first_id_)]);
    } else {
      __builtin_prefetch(&slots_[slot_of(id)]);
    }
  }

 private:
  struct Slot {
    std::int64_t id = -1;  // -1: empty (ids are never negative here)
    EventIndex index = kNoEvent;
  };
  [[nodiscard]] std::size_t slot_of(std::int64_t id) const {
    // Fibonacci hashing spreads consecutive ids over the table.
    const auto mixed = static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed >> 17) & (slots_.size() - 1);
  }
  [[nodiscard]] bool in_array(std::int64_t id) const {
    return id >= first_id_ && static_cast<std::uint64_t>(id - first_id_) < by_id_.size();
  }
  void grow();
  void leave_array_mode();

  bool array_mode_ = false;
  std::int64_t first_id_ = 0;
  std::vector<EventIndex> by_id_;  // array mode: the index of id first_id_ + k, or kNoEvent
  std::vector<Slot> slots_;        // hash mode
  std::size_t used_ = 0;
};

}  // namespace stepscope
