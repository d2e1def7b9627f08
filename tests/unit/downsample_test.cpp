#include "render/downsample.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace stepscope::render {
namespace {

TEST(Downsample, ShortSeriesAreKeptWhole) {
  const std::vector<SeriesPoint> points = {{0, 1}, {1, 2}, {2, 3}};
  EXPECT_EQ(lttb_indices(points, 10).size(), 3U);
}

TEST(Downsample, KeepsEndsAndASpikeWithinTheTarget) {
  std::vector<SeriesPoint> points;
  points.reserve(10'000);
  for (int i = 0; i < 10'000; ++i) points.push_back({static_cast<double>(i), i == 5'123 ? 1e9 : 1});
  const std::vector<std::size_t> kept = lttb_indices(points, 100);
  ASSERT_EQ(kept.size(), 100U);
  EXPECT_EQ(kept.front(), 0U);
  EXPECT_EQ(kept.back(), 9'999U);
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
  EXPECT_NE(std::find(kept.begin(), kept.end(), 5'123U), kept.end());
}

}  // namespace
}  // namespace stepscope::render
