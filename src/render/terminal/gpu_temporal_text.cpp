#include "render/terminal/gpu_temporal_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

// TraceLens's `gpu_timeline` view (§13): the same sets over the span of the activity itself.
std::string timeline_lines(const GpuTemporalResult& temporal) {
  std::string out;
  for (const DeviceTemporal& d : temporal.devices) {
    out += fmt::format("  GPU {} timeline: span {} from first to last activity, busy {}, idle {}\n",
                       d.device, format_ms(d.timeline_span_ns), format_ms(d.busy_ns),
                       format_ms(d.timeline_idle_ns));
  }
  return out;
}

// Exposed communication per step, only where the rank communicates at all.
std::string step_table(const GpuTemporalResult& temporal, int top, std::size_t width) {
  bool any = false;
  for (const StepOverlap& step : temporal.steps) any = any || step.communication_ns > 0;
  if (!any) return {};
  TextTable table;
  for (const char* column : {"step", "communication", "exposed", "overlapped"}) {
    table.add_column(column);
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t s = 0; s < temporal.steps.size() && s < limit; ++s) {
    const StepOverlap& step = temporal.steps[s];
    table.add_row({fmt::format("#{}", step.step_number), format_ms(step.communication_ns),
                   format_ms(step.exposed_communication_ns),
                   step.overlap_share ? format_percent(*step.overlap_share) : "no communication"});
  }
  std::string out = "  communication per step (all devices):\n" + table.render("  ", width);
  if (temporal.steps.size() > limit) {
    out += fmt::format("  … {} more steps (see --json)\n", temporal.steps.size() - limit);
  }
  return out;
}

}  // namespace

std::string render_text(const GpuTemporalResult& temporal, int top, std::size_t width) {
  std::string out = heading("GPU time (window = kept steps)");
  if (!temporal.applicable) {
    out += fmt::format("  not applicable: {}\n", temporal.not_applicable_reason);
    return out;
  }
  TextTable table;
  table.add_column("device");
  table.add_column("window");
  table.add_column("idle", false, Importance::kHigh);
  table.add_column("compute", false, Importance::kHigh);
  table.add_column("comm. exposed", false, Importance::kMedium);
  table.add_column("memory exposed", false, Importance::kMedium);
  table.add_column("comp/comm overlap", false, Importance::kLow);
  auto cell = [](const DeviceTemporal& d, std::int64_t ns) {
    return fmt::format("{} {}", format_ms(ns), format_percent(d.share(ns)));
  };
  for (const DeviceTemporal& d : temporal.devices) {
    table.add_row({fmt::format("GPU {}", d.device), format_ms(d.window_ns), cell(d, d.idle_ns),
                   cell(d, d.compute_ns), cell(d, d.communication_only_ns),
                   cell(d, d.memory_only_ns),
                   d.overlap_share ? format_percent(*d.overlap_share) : "no communication"});
  }
  out += table.render("  ", width);
  out += timeline_lines(temporal);
  out += step_table(temporal, top, width);
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
