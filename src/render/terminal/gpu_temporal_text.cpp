#include "render/terminal/gpu_temporal_text.h"

#include <fmt/core.h>

#include "render/text_format.h"

namespace stepscope::render {

std::string render_text(const GpuTemporalResult& temporal, int /*top*/) {
  std::string out = heading("GPU time (window = kept steps)");
  if (!temporal.applicable) {
    out += fmt::format("  not applicable: {}\n", temporal.not_applicable_reason);
    return out;
  }
  TextTable table;
  for (const char* column : {"device", "window", "idle", "compute", "comm. exposed",
                             "memory exposed", "comp/comm overlap"}) {
    table.add_column(column);
  }
  auto cell = [](const DeviceTemporal& d, std::int64_t ns) {
    return fmt::format("{} {}", format_ms(ns), format_percent(d.share(ns)));
  };
  for (const DeviceTemporal& d : temporal.devices) {
    table.add_row({fmt::format("GPU {}", d.device), format_ms(d.window_ns), cell(d, d.idle_ns),
                   cell(d, d.compute_ns), cell(d, d.communication_only_ns),
                   cell(d, d.memory_only_ns),
                   d.overlap_share ? format_percent(*d.overlap_share) : "no communication"});
  }
  out += table.render();
  for (const DeviceTemporal& d : temporal.devices) {
    if (d.outside_window_activities > 0) {
      out += fmt::format("  GPU {}: {} activities ({}) lie partly or wholly outside the window\n",
                         d.device,
                         format_count(static_cast<std::uint64_t>(d.outside_window_activities)),
                         format_ms(d.outside_window_ns));
    }
  }
  return out;
}

}  // namespace stepscope::render
