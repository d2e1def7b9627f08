#include "render/terminal/kernel_breakdown_text.h"

#include <fmt/format.h>

#include <cmath>

#include "render/text_format.h"

namespace stepscope::render {

std::string render_text(const KernelBreakdownResult& kernels, int top, std::size_t width) {
  std::string out = heading("GPU kernels (window = kept steps)");
  if (!kernels.applicable) {
    out += fmt::format("  not applicable: {}\n", kernels.not_applicable_reason);
    return out;
  }
  for (const DeviceKernels& device : kernels.devices) {
    std::string classes;
    for (const OverlapLabel& label : device.labels) {
      classes += fmt::format("{}{} {} ({})", classes.empty() ? "" : "; ", label.name(),
                             format_ms(label.ns), format_percent(label.share));
    }
    out += fmt::format("  GPU {}: {}\n", device.device, classes);
    TextTable table;
    table.add_column("kernel", true);
    table.add_column("class", true, Importance::kMedium);
    table.add_column("count", false, Importance::kHigh);
    table.add_column("total");
    table.add_column("mean", false, Importance::kMedium);
    for (const char* column : {"min", "max", "std"}) {
      table.add_column(column, false, Importance::kLow);
    }
    table.add_column("share");
    const auto limit = static_cast<std::size_t>(std::max(top, 1));
    for (std::size_t r = 0; r < device.top.size() && r < limit; ++r) {
      const KernelRow& row = device.top[r];
      table.add_row({printable(row.name, 60), std::string(to_string(row.activity_class)),
                     format_count(static_cast<std::uint64_t>(row.count)), format_ms(row.total_ns),
                     format_duration(std::llround(row.mean_ns)), format_duration(row.min_ns),
                     format_duration(row.max_ns), format_duration(std::llround(row.std_ns)),
                     format_percent(row.share)});
    }
    out += table.render("  ", width);
    if (device.others_count > 0) {
      out += fmt::format("  … {} other instances of {} more names, {}\n",
                         format_count(static_cast<std::uint64_t>(device.others_count)),
                         device.distinct_names - static_cast<std::int64_t>(device.top.size()),
                         format_ms(device.others_ns));
    }
  }
  return out;
}

}  // namespace stepscope::render
