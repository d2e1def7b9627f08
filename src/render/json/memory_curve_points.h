// Which points of a memory curve are drawn (JSON and HTML): the curve down-sampled for display.
#pragma once

#include <cstddef>
#include <vector>

#include "stepscope/analysis/memory_curve.h"

namespace stepscope::render {

// The curve is written down-sampled to at most this many points (LTTB, the peak always kept).
inline constexpr std::size_t kMemoryCurvePoints = 2048;

// Indices of the curve points to draw: LTTB over allocated bytes, with the allocation peak added
// back when LTTB dropped it. Shared with the HTML report.
std::vector<std::size_t> curve_points_to_draw(const DeviceMemory& device, std::size_t target);

}  // namespace stepscope::render
