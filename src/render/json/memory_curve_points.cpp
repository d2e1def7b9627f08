#include "render/json/memory_curve_points.h"

#include <algorithm>

#include "render/downsample.h"

namespace stepscope::render {

std::vector<std::size_t> curve_points_to_draw(const DeviceMemory& device, std::size_t target) {
  std::vector<SeriesPoint> series;
  series.reserve(device.curve.size());
  for (const MemoryPoint& p : device.curve) {
    series.push_back({static_cast<double>(p.time_ns), static_cast<double>(p.allocated)});
  }
  std::vector<std::size_t> kept = lttb_indices(series, target);
  auto peak = std::find_if(device.curve.begin(), device.curve.end(), [&device](const auto& p) {
    return p.allocated == device.peak_allocated;
  });
  if (peak != device.curve.end()) {
    const auto index = static_cast<std::size_t>(peak - device.curve.begin());
    auto at = std::lower_bound(kept.begin(), kept.end(), index);
    if (at == kept.end() || *at != index) kept.insert(at, index);
  }
  return kept;
}

}  // namespace stepscope::render
