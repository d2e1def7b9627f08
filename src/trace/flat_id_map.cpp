#include "trace/flat_id_map.h"

#include <bit>

namespace stepscope {

FlatIdMap::FlatIdMap(std::size_t expected) { slots_.resize(std::bit_ceil(expected * 2 + 16)); }

std::size_t FlatIdMap::slot_of(std::int64_t id) const {
  // Fibonacci hashing spreads consecutive ids over the table.
  const auto mixed = static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ULL;
  return static_cast<std::size_t>(mixed >> 17) & (slots_.size() - 1);
}

void FlatIdMap::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.resize(old.size() * 2);
  used_ = 0;
  for (const Slot& slot : old) {
    if (slot.id >= 0) find_or_insert(slot.id, slot.index);
  }
}

EventIndex& FlatIdMap::find_or_insert(std::int64_t id, EventIndex index) {
  if ((used_ + 1) * 2 > slots_.size()) grow();
  std::size_t at = slot_of(id);
  while (slots_[at].id >= 0 && slots_[at].id != id) at = (at + 1) & (slots_.size() - 1);
  if (slots_[at].id < 0) {
    slots_[at] = Slot{id, index};
    ++used_;
  }
  return slots_[at].index;
}

EventIndex FlatIdMap::find(std::int64_t id) const {
  std::size_t at = slot_of(id);
  while (slots_[at].id >= 0) {
    if (slots_[at].id == id) return slots_[at].index;
    at = (at + 1) & (slots_.size() - 1);
  }
  return kNoEvent;
}

}  // namespace stepscope
