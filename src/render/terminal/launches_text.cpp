#include "render/terminal/launches_text.h"

#include <fmt/core.h>

#include <cmath>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string duration(double ns) { return format_duration(std::llround(ns)); }

}  // namespace

std::string render_text(const LaunchResult& launches, int top) {
  std::string out = heading("Launches (window = kept steps)");
  if (!launches.applicable) {
    out += fmt::format("  not applicable: {}\n", launches.not_applicable_reason);
    return out;
  }
  TextTable calls;
  for (const char* column : {"class", "count", "cpu p50", "cpu p95", "cpu max", "delay p50",
                             "delay p95", "delay max", "delay < 0", "short kernels"}) {
    calls.add_column(column);
  }
  for (std::size_t k = 0; k < kLaunchClassCount; ++k) {
    const LaunchClassStats& s = launches.classes[k];
    if (s.count == 0) continue;
    calls.add_row({std::string(to_string(static_cast<LaunchClass>(k))),
                   format_count(static_cast<std::uint64_t>(s.count)),
                   duration(s.cpu_duration_ns.p50), duration(s.cpu_duration_ns.p95),
                   duration(s.cpu_duration_ns.max), duration(s.launch_delay_ns.p50),
                   duration(s.launch_delay_ns.p95), duration(s.launch_delay_ns.max),
                   format_count(static_cast<std::uint64_t>(s.negative_delay_count)),
                   format_count(static_cast<std::uint64_t>(s.short_kernel_count))});
  }
  out += calls.render();
  TextTable queues;
  for (const char* column :
       {"device", "stream", "mean depth (time-weighted)", "max depth", "time at the 1024 limit"}) {
    queues.add_column(column);
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t q = 0; q < launches.queues.size() && q < limit; ++q) {
    const StreamQueue& queue = launches.queues[q];
    queues.add_row({fmt::format("GPU {}", queue.device), std::to_string(queue.stream),
                    fmt::format("{:.1f}", queue.time_weighted_mean),
                    std::to_string(queue.max_depth), format_ms(queue.time_at_limit_ns)});
  }
  out += "  launch queue per stream (work submitted, not yet started)\n";
  out += queues.render();
  return out;
}

}  // namespace stepscope::render
