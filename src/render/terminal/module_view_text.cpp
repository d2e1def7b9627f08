#include "render/terminal/module_view_text.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "render/text_format.h"

namespace stepscope::render {

std::string render_text(const ModuleViewResult& modules, int top) {
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
  for (const char* column : {per_step ? "calls/step" : "calls", "host total", "host self",
                             "device total", "device self"}) {
    table.add_column(column);
  }
  for (std::size_t r : order) {
    const ModuleRow& row = modules.rows[r];
    const std::string indent(static_cast<std::size_t>(std::min(row.depth, 12)) * 2, ' ');
    table.add_row({indent + printable(row.name, 50),
                   per_step ? fmt::format("{:.1f}", static_cast<double>(row.calls) /
                                                        static_cast<double>(divisor))
                            : format_count(static_cast<std::uint64_t>(row.calls)),
                   per(row.host_total_ns), per(row.host_self_ns), per(row.device_total_ns),
                   per(row.device_self_ns)});
  }
  out += table.render();
  if (modules.rows.size() > limit) {
    out += fmt::format("  {} of {} modules shown (the largest by host time)\n", limit,
                       modules.rows.size());
  }
  return out;
}

}  // namespace stepscope::render
