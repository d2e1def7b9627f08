#include <algorithm>
#include <cstring>

#include "stepscope/trace.h"

namespace stepscope {

namespace {
constexpr std::size_t kMinBlock = 64 * 1024;
}

StringPool::StringPool() {
  strings_.emplace_back();
  index_.emplace(std::string_view{}, 0);
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

StringId StringPool::intern(std::string_view text) {
  if (auto found = index_.find(text); found != index_.end()) return found->second;
  const std::string_view stored = store(text);
  const auto id = static_cast<StringId>(strings_.size());
  strings_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringPool::find(std::string_view text) const {
  auto found = index_.find(text);
  return found == index_.end() ? kNotInterned : found->second;
}

std::size_t StringPool::bytes() const {
  std::size_t total = strings_.capacity() * sizeof(std::string_view);
  total += index_.size() * (sizeof(std::string_view) + sizeof(StringId) + 2 * sizeof(void*));
  total += blocks_.size() * kMinBlock;
  return total;
}

}  // namespace stepscope
