// A column of the trace's tables: a growable array of plain values, like std::vector, whose
// storage it owns outright. The importer may give a column pages of its own, which another
// column can then take over whole; that machinery is private to the trace's storage
// (src/trace/column_pages.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

namespace stepscope {

// The storage behind Column, in bytes. Paged storage is whole pages mapped for the column alone
// (where the system can move pages between mappings: Linux); the rest comes from malloc.
namespace column_storage {

struct Block {
  std::byte* data = nullptr;
  std::size_t bytes = 0;  // usable
  bool paged = false;
  bool one_mapping = true;  // paged: no other block's pages appended (the kernel moves only these)
};

// Throws std::bad_alloc when the system has no room.
Block allocate(std::size_t bytes, bool paged);
// `block` with room for `bytes`, its first `used` bytes kept; may move.
Block reallocate(Block block, std::size_t used, std::size_t bytes);
void release(Block block) noexcept;

}  // namespace column_storage

template <typename T>
class Column {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "a column holds plain values, copied as bytes");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;

  Column() = default;
  Column(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  explicit Column(std::size_t count, const T& value = T()) { assign(count, value); }
  template <typename It>
  requires std::forward_iterator<It> Column(It first, It last) { assign(first, last); }
  Column(const Column& other) { assign(other.begin(), other.end()); }
  Column(Column&& other) noexcept
      : block_(std::exchange(other.block_, {})), size_(std::exchange(other.size_, 0)) {}
  Column& operator=(const Column& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  Column& operator=(Column&& other) noexcept {
    Column(std::move(other)).swap(*this);
    return *this;
  }
  Column& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~Column() { column_storage::release(block_); }

  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const { return block_.bytes / sizeof(T); }
  [[nodiscard]] T* data() { return reinterpret_cast<T*>(block_.data); }
  [[nodiscard]] const T* data() const { return reinterpret_cast<const T*>(block_.data); }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  operator std::span<const T>() const { return {data(), size_}; }  // NOLINT: a view, implicit

  void push_back(const T& value) {
    if (size_ == capacity()) grow_for(size_ + 1);
    data()[size_++] = value;
  }
  void reserve(std::size_t count) {
    if (count > capacity()) resize_block(count);
  }
  // New values are `value`, T() by default, as std::vector's.
  void resize(std::size_t count, const T& value = T()) {
    reserve(count);
    std::fill(data() + std::min(size_, count), data() + count, value);
    size_ = count;
  }
  void clear() { size_ = 0; }
  void assign(std::size_t count, const T& value) {
    clear();
    resize(count, value);
  }
  template <typename It>
  requires std::forward_iterator<It>
  void assign(It first, It last) {
    clear();
    insert(end(), first, last);
  }
  // Inserts [first, last), which may not be this column's own values, before `at`; returns where
  // the first inserted value went.
  template <typename It>
  requires std::forward_iterator<It> T* insert(const T* at, It first, It last) {
    const auto offset = static_cast<std::size_t>(at - data());
    const auto count = static_cast<std::size_t>(std::distance(first, last));
    if (size_ + count > capacity()) grow_for(size_ + count);
    std::copy_backward(data() + offset, data() + size_, data() + size_ + count);
    std::copy(first, last, data() + offset);
    size_ += count;
    return data() + offset;
  }
  T* insert(const T* at, const T& value) {
    const T copy = value;  // `value` may be in this column, which insert may move
    return insert(at, &copy, &copy + 1);
  }
  T* erase(const T* first, const T* last) {
    const auto from = static_cast<std::size_t>(first - data());
    const auto to = static_cast<std::size_t>(last - data());
    std::copy(data() + to, data() + size_, data() + from);
    size_ -= to - from;
    return data() + from;
  }
  T* erase(const T* at) { return erase(at, at + 1); }
  void swap(Column& other) noexcept {
    std::swap(block_, other.block_);
    std::swap(size_, other.size_);
  }
  friend bool operator==(const Column& a, const Column& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  friend struct ColumnPages;
  static std::size_t bytes_for(std::size_t count) {
    if (count > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    return count * sizeof(T);
  }
  // Doubles, as std::vector does, so that pushing n values copies O(n) bytes in all.
  void grow_for(std::size_t needed) { resize_block(std::max(needed, 2 * capacity())); }
  void resize_block(std::size_t count) {
    block_ = column_storage::reallocate(block_, size_ * sizeof(T), bytes_for(count));
  }

  column_storage::Block block_;
  std::size_t size_ = 0;
};

template <typename T>
void swap(Column<T>& a, Column<T>& b) noexcept {
  a.swap(b);
}

}  // namespace stepscope
