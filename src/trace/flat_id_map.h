// An open-addressing map from non-negative 64-bit ids (correlation, External id) to event
// indices: the linker looks up millions of ids, and std::unordered_map's node per entry costs
// a cache miss each.
#pragma once

#include <cstdint>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

class FlatIdMap {
 public:
  explicit FlatIdMap(std::size_t expected = 16);
  // Inserts if absent; returns a reference to the stored index either way.
  EventIndex& find_or_insert(std::int64_t id, EventIndex index);
  // The stored index, or kNoEvent.
  [[nodiscard]] EventIndex find(std::int64_t id) const;

 private:
  struct Slot {
    std::int64_t id = -1;  // -1: empty (ids are never negative here)
    EventIndex index = kNoEvent;
  };
  [[nodiscard]] std::size_t slot_of(std::int64_t id) const;
  void grow();
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace stepscope
