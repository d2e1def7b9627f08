#include <gtest/gtest.h>

#include "stepscope/intervals.h"

namespace stepscope {
namespace {

TEST(IntervalSet, MergesOverlappingAndTouching) {
  const IntervalSet set =
      IntervalSet::from_unsorted({{10, 20}, {0, 5}, {5, 8}, {15, 30}, {40, 40}});
  ASSERT_EQ(set.intervals().size(), 2U);
  EXPECT_EQ(set.intervals()[0], (Interval{0, 8}));
  EXPECT_EQ(set.intervals()[1], (Interval{10, 30}));
  EXPECT_EQ(set.measure(), 28);
}

TEST(IntervalSet, IntersectSubtractUnite) {
  const IntervalSet a = IntervalSet::from_unsorted({{0, 10}, {20, 30}});
  const IntervalSet b = IntervalSet::from_unsorted({{5, 25}});
  EXPECT_EQ(a.intersect(b).measure(), 10);
  EXPECT_EQ(a.subtract(b).measure(), 10);
  EXPECT_EQ(a.unite(b).measure(), 30);
  EXPECT_EQ(b.subtract(a).measure(), 10);
  EXPECT_EQ(a.measure_within({8, 22}), 4);
  EXPECT_EQ(a.clip({8, 22}).measure(), 4);
}

TEST(IntervalSet, SubtractSeveralCutsFromOnePiece) {
  const IntervalSet a = IntervalSet::from_unsorted({{0, 100}});
  const IntervalSet cuts = IntervalSet::from_unsorted({{10, 20}, {30, 40}, {90, 120}});
  const IntervalSet rest = a.subtract(cuts);
  ASSERT_EQ(rest.intervals().size(), 3U);
  EXPECT_EQ(rest.measure(), 70);
}

// Analyses call from_sorted on intervals gathered in event order; a trace whose order they
// misjudge must still give the right set, not a silently wrong measure.
TEST(IntervalSet, FromSortedStaysRightOnInputOutOfOrder) {
  const std::vector<Interval> shuffled = {{10, 20}, {0, 5}, {5, 8}, {15, 30}, {40, 40}, {2, 3}};
  const IntervalSet expected = IntervalSet::from_unsorted(shuffled);
  const IntervalSet set = IntervalSet::from_sorted(shuffled);
  EXPECT_EQ(set.intervals(), expected.intervals());
  EXPECT_EQ(set.measure(), 28);
  // Empty intervals out of place do not count as disorder.
  EXPECT_EQ(IntervalSet::from_sorted({{0, 5}, {3, 3}, {4, 9}}).intervals(),
            (std::vector<Interval>{{0, 9}}));
}

}  // namespace
}  // namespace stepscope
