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

std::string render_text(const LaunchesResult& launches, int /*top*/) {
  std::string out = heading("Kernel launches (calls starting in the step window)");
  if (!launches.applicable) {
    out += fmt::format("  not applicable: {}\n", launches.not_applicable_reason);
    return out;
  }
  TextTable table;
  for (const char* column :
       {"class", "count", "cpu p50", "cpu p95", "cpu max", "delay p50", "delay p95", "delay max",
        "delay < 0", "cpu > 50 µs", "delay > 100 µs", "short kernels"}) {
    table.add_column(column);
  }
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
  out += table.render();
  out += "  delay = activity start - call end; a long delay means queued work (GPU-bound)\n";
  return out;
}

}  // namespace stepscope::render
