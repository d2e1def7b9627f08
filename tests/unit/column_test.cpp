// Column: a vector of plain values whose pages another column can take over.
#include "trace/column_pages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace stepscope {
namespace {

// Forty bytes: a row whose size does not divide the page.
struct Row {
  std::int64_t a = 0;
  std::int64_t b = 0;
  std::uint32_t c = 0;
  std::uint32_t d = 0;
  std::int32_t e = 0;
  std::int32_t f = 0;
  std::int32_t g = 0;
  bool operator==(const Row&) const = default;
};
static_assert(sizeof(Row) == 40);

#if defined(__linux__)
constexpr bool kPagesMove = true;
#else
constexpr bool kPagesMove = false;  // columns copy instead
#endif

template <typename T>
std::vector<T> as_vector(const Column<T>& column) {
  return {column.begin(), column.end()};
}

// `count` values from `from` on, in a column with room for `room` values in all.
template <typename T>
Column<T> counting(std::size_t count, std::int64_t from, bool movable, std::size_t room = 0) {
  Column<T> column;
  if (movable) ColumnPages::reserve_movable(column, std::max(room, count + 1));
  for (std::size_t i = 0; i < count; ++i) {
    column.push_back(static_cast<T>(from + static_cast<std::int64_t>(i)));
  }
  return column;
}

TEST(Column, BehavesAsAVectorOfValues) {
  Column<std::int64_t> column{3, 1, 2};
  column.push_back(7);
  EXPECT_EQ(as_vector(column), (std::vector<std::int64_t>{3, 1, 2, 7}));
  column.insert(column.begin() + 1, 9);
  column.erase(column.begin());
  EXPECT_EQ(as_vector(column), (std::vector<std::int64_t>{9, 1, 2, 7}));
  column.resize(6, -1);
  EXPECT_EQ(column.back(), -1);
  column.resize(2);
  EXPECT_EQ(as_vector(column), (std::vector<std::int64_t>{9, 1}));
  Column<std::int64_t> copy = column;
  copy.front() = 4;
  EXPECT_EQ(column.front(), 9);
  Column<std::int64_t> moved = std::move(copy);
  EXPECT_EQ(moved, (Column<std::int64_t>{4, 1}));
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): moved-from columns are empty
  std::vector<std::int64_t> many(100000);
  std::iota(many.begin(), many.end(), 0);
  column.assign(many.begin(), many.end());
  EXPECT_EQ(as_vector(column), many);
}

TEST(Column, GrowsPastAMovableReservation) {
  Column<std::int32_t> column;
  ColumnPages::reserve_movable(column, 10);
  for (std::int32_t i = 0; i < 200000; ++i) column.push_back(i);
  ASSERT_EQ(column.size(), 200000U);
  for (std::int32_t i = 0; i < 200000; i += 997) EXPECT_EQ(column[i], i);
}

template <typename T>
void check_append_moving(std::size_t earlier, std::size_t later, bool earlier_movable,
                         bool later_movable) {
  // Room for the two partial pages: two pages' worth of even 1-byte values.
  const auto page_slack = 2 * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  Column<T> to = counting<T>(earlier, 0, earlier_movable, earlier + later + page_slack);
  Column<T> from = counting<T>(later, static_cast<std::int64_t>(earlier), later_movable);
  const bool moved = ColumnPages::append_moving(to, from);
  EXPECT_EQ(moved, later > 0 && earlier_movable && later_movable && kPagesMove)
      << earlier << " + " << later;
  EXPECT_TRUE(from.empty());
  const std::vector<T> expected = as_vector(counting<T>(earlier + later, 0, false));
  EXPECT_EQ(as_vector(to), expected) << earlier << " + " << later;
  // Both stay usable: the joined column grows on, and the emptied one fills again.
  to.push_back(T{});
  from.push_back(T{});
  EXPECT_EQ(to.size(), earlier + later + 1);
  EXPECT_EQ(from.size(), 1U);
}

TEST(Column, AppendMovingKeepsEveryValueInOrder) {
  // Counts that end mid-page and on a page boundary (4 KiB pages: 512 eight-byte values).
  for (std::size_t earlier : {0UL, 1UL, 511UL, 512UL, 513UL, 70001UL}) {
    for (std::size_t later : {0UL, 1UL, 512UL, 65537UL}) {
      check_append_moving<std::int64_t>(earlier, later, true, true);
      check_append_moving<std::uint8_t>(earlier, later, true, true);
      check_append_moving<std::int64_t>(earlier, later, false, true);
      check_append_moving<std::int64_t>(earlier, later, true, false);
    }
  }
}

TEST(Column, AppendMovingRowsWhoseSizeDoesNotDivideThePage) {
  Column<Row> to;
  Column<Row> from;
  ColumnPages::reserve_movable(to, 50000);
  ColumnPages::reserve_movable(from, 30000);
  std::vector<Row> expected;
  for (std::int32_t i = 0; i < 30011; ++i) {
    const Row row{i, -i, static_cast<std::uint32_t>(i), 1, 2, 3, i % 7};
    (i < 12345 ? to : from).push_back(row);
    expected.push_back(row);
  }
  EXPECT_EQ(ColumnPages::append_moving(to, from), kPagesMove);
  EXPECT_EQ(as_vector(to), expected);
}

TEST(Column, AppendMovingThroughAMapRewritesEveryValue) {
  for (std::size_t earlier : {0UL, 3UL, 512UL, 4099UL}) {
    for (const bool movable : {true, false}) {
      Column<std::uint32_t> to = counting<std::uint32_t>(earlier, 0, true, earlier + 30000);
      Column<std::uint32_t> from = counting<std::uint32_t>(20000, 0, movable);
      EXPECT_EQ(ColumnPages::append_moving(to, from, [](std::uint32_t v) { return 3 * v + 1; }),
                movable && kPagesMove);
      ASSERT_EQ(to.size(), earlier + 20000) << earlier;
      for (std::size_t i = 0; i < earlier; ++i) ASSERT_EQ(to[i], i) << earlier;
      for (std::uint32_t i = 0; i < 20000; ++i) ASSERT_EQ(to[earlier + i], 3 * i + 1) << earlier;
      EXPECT_TRUE(from.empty());
    }
  }
}

TEST(Column, AppendMovingWithoutRoomCopies) {
  const auto per_page = static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE)) / 8;
  Column<std::int64_t> to;
  ColumnPages::reserve_movable(to, 10);  // one page
  for (std::int64_t i = 0; i < per_page - 12; ++i) to.push_back(i);
  Column<std::int64_t> from = counting<std::int64_t>(10 * per_page, per_page - 12, true);
  EXPECT_FALSE(ColumnPages::append_moving(to, from));
  EXPECT_EQ(as_vector(to), as_vector(counting<std::int64_t>(11 * per_page - 12, 0, false)));
}

TEST(Column, AColumnThatTookPagesOverCanGiveThemOnAndGrow) {
  // A part that absorbed the one after it is absorbed in turn, and the trace grows after.
  Column<std::int64_t> first = counting<std::int64_t>(3001, 0, true, 20000);
  Column<std::int64_t> second = counting<std::int64_t>(2000, 3001, true, 10000);
  Column<std::int64_t> third = counting<std::int64_t>(999, 5001, true);
  EXPECT_EQ(ColumnPages::append_moving(second, third), kPagesMove);
  // `second` is now two mappings, which the kernel cannot move as one: its values are copied.
  EXPECT_FALSE(ColumnPages::append_moving(first, second));
  for (std::int64_t i = 6000; i < 300000; ++i) first.push_back(i);
  EXPECT_EQ(as_vector(first), as_vector(counting<std::int64_t>(300000, 0, false)));
}

}  // namespace
}  // namespace stepscope
