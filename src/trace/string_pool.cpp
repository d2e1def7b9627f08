#include <algorithm>
#include <cstring>

#include "stepscope/trace.h"

namespace stepscope {

namespace {

constexpr std::size_t kMinBlock = 64 * 1024;
constexpr std::size_t kInitialSlots = 1024;

// A fast 64-bit hash over 8-byte words; names repeat so often that hashing them dominates
// interning.
std::uint64_t hash_text(std::string_view text) {
  std::uint64_t hash = 0x9E3779B97F4A7C15ULL ^ text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + i, 8);
    hash = (hash ^ word) * 0xBF58476D1CE4E5B9ULL;
    hash ^= hash >> 31;
  }
  std::uint64_t tail = 0;
  if (i < text.size()) std::memcpy(&tail, text.data() + i, text.size() - i);
  hash = (hash ^ tail) * 0x94D049BB133111EBULL;
  return hash ^ (hash >> 29);
}

}  // namespace

StringPool::StringPool() {
  strings_.emplace_back();
  slots_.resize(kInitialSlots);
  const std::uint64_t hash = hash_text({});
  slots_[hash & (slots_.size() - 1)] = Slot{hash, 0};
}

std::string_view StringPool::store(std::string_view text) {
  if (text.empty()) return {};
  if (blocks_.empty() || block_used_ + text.size() > block_size_) {
    block_size_ = std::max(kMinBlock, text.size());
    blocks_.push_back(std::make_unique<char[]>(block_size_));
    block_used_ = 0;
  }
  char* destination = blocks_.back().get() + block_used_;
  std::memcpy(destination, text.data(), text.size());
  block_used_ += text.size();
  return {destination, text.size()};
}

void StringPool::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.resize(old.size() * 2);
  for (const Slot& slot : old) {
    if (slot.id == kNotInterned) continue;
    std::size_t at = slot.hash & (slots_.size() - 1);
    while (slots_[at].id != kNotInterned) at = (at + 1) & (slots_.size() - 1);
    slots_[at] = slot;
  }
}

StringId StringPool::intern(std::string_view text) {
  // Most optional fields of an event are absent: the empty string is always id 0, unhashed.
  if (text.empty()) return 0;
  const std::uint64_t hash = hash_text(text);
  std::size_t at = hash & (slots_.size() - 1);
  while (slots_[at].id != kNotInterned) {
    if (slots_[at].hash == hash && strings_[slots_[at].id] == text) return slots_[at].id;
    at = (at + 1) & (slots_.size() - 1);
  }
  const auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(store(text));
  slots_[at] = Slot{hash, id};
  if (strings_.size() * 2 > slots_.size()) grow();
  return id;
}

StringId StringPool::find(std::string_view text) const {
  const std::uint64_t hash = hash_text(text);
  std::size_t at = hash & (slots_.size() - 1);
  while (slots_[at].id != kNotInterned) {
    if (slots_[at].hash == hash && strings_[slots_[at].id] == text) return slots_[at].id;
    at = (at + 1) & (slots_.size() - 1);
  }
  return kNotInterned;
}

std::size_t StringPool::bytes() const {
  return strings_.size() * sizeof(std::string_view) + slots_.size() * sizeof(Slot) +
         blocks_.size() * kMinBlock;
}

}  // namespace stepscope
