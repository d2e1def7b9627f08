#include "render/terminal/module_view_text.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "render/text_format.h"

namespace stepscope::render {

std::string render_text(const ModuleViewResult& modules, int top, std::size_t width) {
  if (!modules.applicable) {
    return fmt::format("Modules: {}\n", printable(modules.not_applicable_reason, 300));
  }
  const bool per_step = modules.kept_steps > 0;
  std::string out =
      heading(fmt::format("Modules (nn.Module forward, {}; from {})",
                          per_step ? "per kept step" : "whole trace", modules.source));
  // The `top` rows by host time, shown in tree order.
  std::vector<std::size_t> order(modules.rows.size());
  std::iota(order.begin(), order.end(), 0);
  const auto limit = std::min(order.size(), static_cast<std::size_t>(std::max(top, 1)));
  std::stable_sort(order.begin(), order.end(), [&modules](std::size_t a, std::size_t b) {
    return modules.rows[a].host_total_ns > modules.rows[b].host_total_ns;
  });
  order.resize(limit);
  std::sort(order.begin(), order.end());
  const std::int64_t divisor = std::max<std::int64_t>(modules.kept_steps, 1);
  auto per = [divisor](std::int64_t ns) { return format_duration(ns / divisor); };
  TextTable table;
  table.add_column("module", true);
  table.add_column(per_step ? "calls/step" : "calls", false, Importance::kMedium);
  table.add_column("host total");
  table.add_column("host self", false, Importance::kHigh);
  // A CPU trace's modules launch nothing: device columns of zeros would say nothing.
  const bool device = std::any_of(modules.rows.begin(), modules.rows.end(),
                                  [](const ModuleRow& row) { return row.device_total_ns != 0; });
  if (device) {
    table.add_column("device total", false, Importance::kMedium);
    table.add_column("device self", false, Importance::kLow);
  }
  for (std::size_t r : order) {
    const ModuleRow& row = modules.rows[r];
    const std::string indent(static_cast<std::size_t>(std::min(row.depth, 12)) * 2, ' ');
    std::vector<std::string> cells = {
        indent + printable(row.name, 50),
        per_step
            ? fmt::format("{:.1f}", static_cast<double>(row.calls) / static_cast<double>(divisor))
            : format_count(static_cast<std::uint64_t>(row.calls)),
        per(row.host_total_ns), per(row.host_self_ns)};
    if (device) {
      cells.push_back(per(row.device_total_ns));
      cells.push_back(per(row.device_self_ns));
    }
    table.add_row(std::move(cells));
  }
  out += table.render("  ", width);
  if (modules.rows.size() > limit) {
    out += fmt::format("  {} of {} modules shown (the largest by host time)\n", limit,
                       modules.rows.size());
  }
  return out;
}

}  // namespace stepscope::render
