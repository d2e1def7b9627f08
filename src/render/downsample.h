// Down-sampling of long series for display: Largest-Triangle-Three-Buckets (Steinarsson 2013),
// the method tb_plugin uses for its memory curve. It keeps the first and last points and, per
// bucket, the point that spans the largest triangle with its neighbours, so peaks survive.
#pragma once

#include <cstddef>
#include <vector>

namespace stepscope::render {

struct SeriesPoint {
  double x = 0;
  double y = 0;
};

// Indices of the kept points, in order; all of them when there are at most `target`.
std::vector<std::size_t> lttb_indices(const std::vector<SeriesPoint>& points, std::size_t target);

}  // namespace stepscope::render
