#include "render/downsample.h"

#include <cmath>
#include <numeric>

namespace stepscope::render {

namespace {

SeriesPoint mean_of(const std::vector<SeriesPoint>& points, std::size_t begin, std::size_t end) {
  SeriesPoint mean;
  for (std::size_t i = begin; i < end; ++i) {
    mean.x += points[i].x;
    mean.y += points[i].y;
  }
  const auto n = static_cast<double>(end - begin);
  return {mean.x / n, mean.y / n};
}

double triangle_area(SeriesPoint a, SeriesPoint b, SeriesPoint c) {
  return std::abs((a.x - c.x) * (b.y - a.y) - (a.x - b.x) * (c.y - a.y));
}

}  // namespace

std::vector<std::size_t> lttb_indices(const std::vector<SeriesPoint>& points, std::size_t target) {
  const std::size_t n = points.size();
  std::vector<std::size_t> kept;
  if (target < 3 || n <= target) {
    kept.resize(n);
    std::iota(kept.begin(), kept.end(), std::size_t{0});
    return kept;
  }
  const double bucket = static_cast<double>(n - 2) / static_cast<double>(target - 2);
  auto bucket_start = [bucket](std::size_t b) {
    return static_cast<std::size_t>(std::floor(static_cast<double>(b) * bucket)) + 1;
  };
  kept.push_back(0);
  std::size_t previous = 0;
  for (std::size_t b = 0; b < target - 2; ++b) {
    const std::size_t begin = bucket_start(b);
    const std::size_t end = std::min(bucket_start(b + 1), n - 1);
    const std::size_t next_end = std::min(bucket_start(b + 2), n);
    const SeriesPoint next = end < next_end ? mean_of(points, end, next_end) : points[n - 1];
    std::size_t best = begin;
    double best_area = -1;
    for (std::size_t i = begin; i < end; ++i) {
      const double area = triangle_area(points[previous], points[i], next);
      if (area > best_area) {
        best_area = area;
        best = i;
      }
    }
    kept.push_back(best);
    previous = best;
  }
  kept.push_back(n - 1);
  return kept;
}

}  // namespace stepscope::render
