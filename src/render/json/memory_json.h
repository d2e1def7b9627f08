#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/memory_curve.h"

namespace stepscope::render {

// The curve is written down-sampled to at most this many points (LTTB, the peak always kept).
inline constexpr std::size_t kMemoryCurvePoints = 2048;

void write_json(JsonWriter& json, const Trace& trace, const MemoryCurveResult& memory);

// Indices of the curve points to draw: LTTB over allocated bytes, with the allocation peak added
// back when LTTB dropped it. Shared with the HTML report.
std::vector<std::size_t> curve_points_to_draw(const DeviceMemory& device, std::size_t target);

}  // namespace stepscope::render
