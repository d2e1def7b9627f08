#include "render/terminal/gpu_metrics_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string percent_or_dash(const std::optional<double>& share) {
  return share ? format_percent(*share) : "—";
}

std::string device_table(const GpuMetricsResult& metrics, std::size_t width) {
  const bool native = metrics.mode != Mode::kCompatTb;
  TextTable table;
  table.add_column("device");
  table.add_column("kernel busy");
  table.add_column("utilization");
  if (native) table.add_column("with memcpy/memset", false, Importance::kLow);
  table.add_column("est. SM efficiency", false, Importance::kMedium);
  table.add_column("est. occupancy", false, Importance::kMedium);
  table.add_column(native ? "tensor cores (heuristic)" : "tensor cores", false, Importance::kHigh);
  for (const GpuDeviceMetrics& device : metrics.devices) {
    std::vector<std::string> row = {fmt::format("GPU {}", device.device),
                                    format_duration(device.kernel_busy_ns),
                                    format_percent(device.utilization)};
    if (native) row.push_back(percent_or_dash(device.utilization_with_memory));
    row.push_back(percent_or_dash(device.sm_efficiency));
    row.push_back(percent_or_dash(device.achieved_occupancy));
    row.push_back(percent_or_dash(device.tensor_core_share));
    table.add_row(std::move(row));
  }
  return table.render("  ", width);
}

std::string rule_table(const GpuMetricsResult& metrics, int top, std::size_t width) {
  TextTable table;
  table.add_column("device");
  table.add_column("tensor-core rule", true);
  table.add_column("list", true, Importance::kMedium);
  table.add_column("kernels", false, Importance::kLow);
  table.add_column("kernel time");
  for (const GpuDeviceMetrics& device : metrics.devices) {
    const std::size_t limit =
        std::min(device.tensor_core_rules.size(), static_cast<std::size_t>(std::max(top, 1)));
    for (std::size_t i = 0; i < limit; ++i) {
      const TensorCoreRuleTime& rule = device.tensor_core_rules[i];
      table.add_row({fmt::format("GPU {}", device.device), printable(rule.pattern, 40),
                     rule.extended ? "extended (heuristic)" : "tb_plugin",
                     format_count(static_cast<std::uint64_t>(rule.kernels)),
                     format_duration(rule.kernel_ns)});
    }
  }
  return table.empty() ? std::string() : table.render("  ", width);
}

}  // namespace

std::string render_text(const GpuMetricsResult& metrics, int top, std::size_t width) {
  std::string out = heading("GPU summary");
  if (!metrics.applicable) {
    return out + "  not applicable: " + printable(metrics.not_applicable_reason) + "\n";
  }
  out += fmt::format("  mode {}, window {}\n", to_string(metrics.mode),
                     format_duration(metrics.window->length()));
  out += device_table(metrics, width);
  if (metrics.tensor_core_share_all_kernels) {
    out += "  tensor cores over all kernels: " +
           format_percent(*metrics.tensor_core_share_all_kernels) + "\n";
  }
  out += rule_table(metrics, top, width);
  for (const std::string& quirk : metrics.quirks) {
    out += "  tb_plugin artefact reproduced: " + printable(quirk, 100) + "\n";
  }
  return out;
}

}  // namespace stepscope::render
