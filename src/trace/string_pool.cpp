#include <algorithm>
#include <cstring>

#include "stepscope/trace.h"

namespace stepscope {

namespace {

constexpr std::size_t kMinBlock = std::size_t{64} * 1024;
constexpr std::size_t kInitialSlots = 1024;

std::uint64_t load8(const char* p) {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  return word;
}
std::uint64_t load4(const char* p) {
  std::uint32_t word = 0;
  std::memcpy(&word, p, sizeof word);
  return word;
}

// The bytes after the last whole word, read with fixed-size loads that stay inside the text
// (they may overlap bytes already hashed). Copying the 1-7 bytes into a zeroed word instead cost
// a store-forwarding stall on every name: a third of interning's time.
std::uint64_t tail_word(std::string_view text) {
  const char* data = text.data();
  const std::size_t size = text.size();
  if (size >= 8) return load8(data + size - 8);
  if (size >= 4) return load4(data) | (load4(data + size - 4) << 32);
  if (size == 0) return 0;
  const auto byte = [data](std::size_t at) {
    return static_cast<std::uint64_t>(static_cast<unsigned char>(data[at]));
  };
  return byte(0) | (byte(size / 2) << 8) | (byte(size - 1) << 16);
}

// A fast 64-bit hash over 8-byte words; names repeat so often that hashing them dominates
// interning. The length is mixed in first, so texts whose tail words coincide still differ.
std::uint64_t hash_text(std::string_view text) {
  std::uint64_t hash = 0x9E3779B97F4A7C15ULL ^ text.size();
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    hash = (hash ^ load8(text.data() + i)) * 0xBF58476D1CE4E5B9ULL;
    hash ^= hash >> 31;
  }
  hash = (hash ^ (i < text.size() ? tail_word(text) : 0)) * 0x94D049BB133111EBULL;
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
