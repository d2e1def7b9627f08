#include "trace/flat_id_map.h"

#include <bit>

namespace stepscope {

FlatIdMap::FlatIdMap(const IdRange& expected) {
  if (expected.count > 0 && expected.min >= 0 && expected.max >= expected.min) {
    const auto spread = static_cast<std::uint64_t>(expected.max - expected.min) + 1;
    if (spread <= kMaxSpreadForArray * expected.count) {
      array_mode_ = true;
      first_id_ = expected.min;
      by_id_.assign(spread, kNoEvent);
      return;
    }
  }
  slots_.resize(std::bit_ceil(expected.count * 2 + 16));
}

// An id outside the range the map was built for (a caller's count was wrong): the array's
// entries move into a hash table, which takes any id.
void FlatIdMap::leave_array_mode() {
  std::vector<EventIndex> by_id;
  by_id.swap(by_id_);
  array_mode_ = false;
  std::size_t count = 0;
  for (const EventIndex index : by_id) count += index != kNoEvent ? 1 : 0;
  slots_.assign(std::bit_ceil(count * 2 + 16), Slot{});
  for (std::size_t k = 0; k < by_id.size(); ++k) {
    if (by_id[k] != kNoEvent) find_or_insert(first_id_ + static_cast<std::int64_t>(k), by_id[k]);
  }
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
  if (array_mode_) {
    if (in_array(id)) {
      EventIndex& stored = by_id_[static_cast<std::size_t>(id - first_id_)];
      if (stored == kNoEvent) stored = index;
      return stored;
    }
    leave_array_mode();
  }
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
  if (array_mode_)
    return in_array(id) ? by_id_[static_cast<std::size_t>(id - first_id_)] : kNoEvent;
  if (slots_.empty()) return kNoEvent;
  std::size_t at = slot_of(id);
  while (slots_[at].id >= 0) {
    if (slots_[at].id == id) return slots_[at].index;
    at = (at + 1) & (slots_.size() - 1);
  }
  return kNoEvent;
}

}  // namespace stepscope
