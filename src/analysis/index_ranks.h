// A set of event indices that numbers its members in index order: rank(i) is how many members
// come before i. One bit per event and a count per 64 events: for a trace of millions of events it
// stays in cache, where an index per event would not, and numbering in index order sorts the
// members by start time without a sort (event order is start order).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace stepscope {

class IndexRanks {
 public:
  explicit IndexRanks(std::size_t universe) : words_((universe + 63) / 64, 0) {}

  void insert(std::uint32_t i) { words_[i / 64] |= bit(i); }
  [[nodiscard]] bool contains(std::uint32_t i) const { return (words_[i / 64] & bit(i)) != 0; }

  // After the last insert and before the first rank or size.
  void number() {
    before_.resize(words_.size());
    std::uint32_t count = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) {
      before_[w] = count;
      count += static_cast<std::uint32_t>(std::popcount(words_[w]));
    }
    size_ = count;
  }

  [[nodiscard]] std::size_t size() const { return size_; }

  // For a member i: how many members are smaller.
  [[nodiscard]] std::uint32_t rank(std::uint32_t i) const {
    const std::uint64_t lower = words_[i / 64] & (bit(i) - 1);
    return before_[i / 64] + static_cast<std::uint32_t>(std::popcount(lower));
  }

 private:
  static std::uint64_t bit(std::uint32_t i) { return std::uint64_t{1} << (i % 64); }

  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> before_;
  std::size_t size_ = 0;
};

}  // namespace stepscope
