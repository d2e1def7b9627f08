// How the importer hands a column's pages to another column: a column reserved as movable holds
// pages of its own, which another column can take over whole. The parts of a trace read on two
// threads are joined that way, without writing a second copy of every value into fresh pages.
// Private to the trace's storage and its builders: the public Column is a plain growable array.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "stepscope/column.h"

namespace stepscope {

namespace column_storage {

// Moves the pages holding the first `from_used` bytes of `from` into `to`'s unused room, to the
// first page boundary at or after its first `to_used` bytes, releases what is left of `from`
// (which is then empty), and returns where those bytes now start: the caller closes the gap of
// less than a page before them. Nothing, with nothing changed, when either is not paged, `from`
// is not one mapping, or `to` lacks the room.
std::byte* move_pages_after(Block& to, std::size_t to_used, Block& from, std::size_t from_used);

}  // namespace column_storage

struct ColumnPages {
  // Reserves pages of the column's own: what append_moving can take over. An empty column only.
  template <typename T>
  static void reserve_movable(Column<T>& column, std::size_t count) {
    if (!column.empty() || count == 0) return;
    Column<T> fresh;
    fresh.block_ = column_storage::allocate(Column<T>::bytes_for(count), true);
    column.swap(fresh);
  }

  // Appends `later`'s values to `to`, each passed through `map`, and leaves `later` empty: by
  // taking over its pages when both are movable and `to` has the room (then no value is written
  // into a fresh page; returns true), else by copying.
  template <typename T, typename Map>
  static bool append_moving(Column<T>& to, Column<T>& later, const Map& map) {
    const std::size_t count = later.size_;
    std::byte* moved = column_storage::move_pages_after(to.block_, to.size_ * sizeof(T),
                                                        later.block_, count * sizeof(T));
    if (moved == nullptr && to.size_ + count > to.capacity()) to.grow_for(to.size_ + count);
    const std::byte* from = moved != nullptr ? moved : reinterpret_cast<std::byte*>(later.data());
    T* out = to.data() + to.size_;
    if (count > 0) {
      if constexpr (std::is_same_v<Map, AsIs<T>>) {
        std::memmove(out, from, count * sizeof(T));
      } else {
        // Forward, value by value: moved values are each read before any write reaches them
        // (the gap before them is less than a page, and they only move down).
        for (std::size_t i = 0; i < count; ++i) {
          T value;
          std::memcpy(&value, from + i * sizeof(T), sizeof(T));
          out[i] = static_cast<T>(map(value));
        }
      }
    }
    to.size_ += count;
    Column<T>().swap(later);
    return moved != nullptr;
  }

  // The same, the values as they are.
  template <typename T>
  static bool append_moving(Column<T>& to, Column<T>& later) {
    return append_moving(to, later, AsIs<T>{});
  }

 private:
  template <typename T>
  struct AsIs {
    T operator()(const T& value) const { return value; }
  };
};

}  // namespace stepscope
