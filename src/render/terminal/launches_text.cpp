#include "render/terminal/launches_text.h"

#include <fmt/format.h>

#include <cmath>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

// Percentiles are doubles (interpolated); a duration on screen needs no sub-ns digit.
std::string duration(double ns) { return format_duration(std::llround(ns)); }
std::string count(std::int64_t n) { return format_count(static_cast<std::uint64_t>(n)); }

}  // namespace

std::string render_text(const LaunchesResult& launches, int /*top*/, std::size_t width) {
  std::string out = heading("Kernel launches (calls starting in the step window)");
  if (!launches.applicable) {
    out += fmt::format("  not applicable: {}\n", launches.not_applicable_reason);
    return out;
  }
  TextTable table;
  table.add_column("class");
  table.add_column("count");
  table.add_column("cpu p50", false, Importance::kHigh);
  table.add_column("cpu p95", false, Importance::kLow);
  table.add_column("cpu max", false, Importance::kLow);
  table.add_column("delay p50");
  table.add_column("delay p95", false, Importance::kMedium);
  table.add_column("delay max", false, Importance::kLow);
  table.add_column("delay < 0", false, Importance::kLow);
  table.add_column("cpu > 50 µs", false, Importance::kLow);
  table.add_column("delay > 100 µs", false, Importance::kMedium);
  table.add_column("short kernels", false, Importance::kMedium);
  for (std::size_t k = 0; k < kLaunchClassCount; ++k) {
    const LaunchClassStats& s = launches.classes[k];
    if (s.count == 0) continue;
    table.add_row({std::string(to_string(static_cast<LaunchClass>(k))), count(s.count),
                   duration(s.cpu_duration_ns.p50), duration(s.cpu_duration_ns.p95),
                   duration(s.cpu_duration_ns.max), duration(s.launch_delay_ns.p50),
                   duration(s.launch_delay_ns.p95), duration(s.launch_delay_ns.max),
                   count(s.signed_delay_negative_count), count(s.cpu_duration_over_50us_count),
                   count(s.launch_delay_over_100us_count), count(s.short_kernel_count)});
  }
  out += table.render("  ", width);
  out += "  delay = activity start - call end; a long delay means queued work (GPU-bound)\n";
  return out;
}

}  // namespace stepscope::render
