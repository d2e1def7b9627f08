#include "render/terminal/operators_text.h"

#include <fmt/core.h>

#include "render/text_format.h"

namespace stepscope::render {

std::string render_text(const OperatorTable& table, int top) {
  std::string out = heading("Operators (like key_averages; window = kept steps)");
  if (!table.applicable) {
    out += fmt::format("  not applicable: {}\n", table.not_applicable_reason);
    return out;
  }
  TextTable rows;
  rows.add_column("op", true);
  if (table.grouped_by_input_shape) rows.add_column("input dims", true);
  for (const char* column :
       {"calls", "self CPU", "total CPU", "self device", "total device", "self device share"}) {
    rows.add_column(column);
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t r = 0; r < table.rows.size() && r < limit; ++r) {
    const OperatorRow& row = table.rows[r];
    std::vector<std::string> cells = {printable(row.name, 50)};
    if (table.grouped_by_input_shape) cells.push_back(printable(row.input_dims, 30));
    for (std::string cell :
         {format_count(static_cast<std::uint64_t>(row.calls)), format_ms(row.self_cpu_ns),
          format_ms(row.total_cpu_ns), format_ms(row.self_device_ns),
          format_ms(row.total_device_ns), format_percent(row.self_device_share)}) {
      cells.push_back(std::move(cell));
    }
    rows.add_row(std::move(cells));
  }
  out += rows.render();
  out += fmt::format(
      "  device time attributed to ops: {} ({}); unattributed: {} in {} activities\n",
      format_ms(table.attributed_device_ns), format_percent(table.attributed_device_share),
      format_ms(table.unattributed_device_ns),
      format_count(static_cast<std::uint64_t>(table.unattributed_activities)));
  return out;
}

}  // namespace stepscope::render
