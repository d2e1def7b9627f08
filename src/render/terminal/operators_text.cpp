#include "render/terminal/operators_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string count(std::int64_t n) { return format_count(static_cast<std::uint64_t>(n)); }

std::string op_table(const OperatorsResult& operators, std::size_t limit, std::size_t width) {
  TextTable table;
  table.add_column("op", true);
  if (operators.grouped_by_input_shape) table.add_column("input dims", true, Importance::kHigh);
  table.add_column("calls", false, Importance::kHigh);
  table.add_column("self CPU");
  table.add_column("total CPU", false, Importance::kHigh);
  table.add_column("CPU avg", false, Importance::kLow);
  // A CPU trace has no device time: three columns of zeros would say nothing.
  const bool device = operators.device_total_ns > 0;
  if (device) {
    table.add_column("self device", false, Importance::kMedium);
    table.add_column("total device", false, Importance::kLow);
    table.add_column("self device share", false, Importance::kMedium);
  }
  for (std::size_t r = 0; r < operators.rows.size() && r < limit; ++r) {
    const OperatorRow& row = operators.rows[r];
    std::vector<std::string> cells = {printable(row.name, 50)};
    if (operators.grouped_by_input_shape) cells.push_back(printable(row.input_dims, 30));
    for (std::string cell :
         {count(row.calls), format_duration(row.self_cpu_ns), format_duration(row.total_cpu_ns),
          format_duration(row.avg_total_cpu_ns)}) {
      cells.push_back(std::move(cell));
    }
    if (device) {
      for (std::string cell :
           {format_duration(row.self_device_ns), format_duration(row.total_device_ns),
            format_percent(row.self_device_share)}) {
        cells.push_back(std::move(cell));
      }
    }
    table.add_row(std::move(cells));
  }
  return table.render("  ", width);
}

std::string device_table(const OperatorsResult& operators, std::size_t limit, std::size_t width) {
  TextTable table;
  table.add_column("device activity", true);
  table.add_column("count", false, Importance::kHigh);
  table.add_column("device time");
  table.add_column("avg", false, Importance::kMedium);
  table.add_column("max", false, Importance::kLow);
  table.add_column("share");
  table.add_column("unattributed", false, Importance::kLow);
  for (std::size_t r = 0; r < operators.device_rows.size() && r < limit; ++r) {
    const DeviceActivityRow& row = operators.device_rows[r];
    table.add_row({printable(row.name, 60), count(row.count), format_duration(row.device_ns),
                   format_duration(row.avg_device_ns), format_duration(row.max_device_ns),
                   format_percent(row.device_share), count(row.unattributed_count)});
  }
  return table.render("  ", width);
}

}  // namespace

std::string render_text(const OperatorsResult& operators, int top, std::size_t width) {
  std::string out = heading(operators.scope ? "Operators (like key_averages; ops starting in the "
                                              "step window)"
                                            : "Operators (like key_averages; whole trace)");
  if (!operators.applicable) {
    out += fmt::format("  not applicable: {}\n", operators.not_applicable_reason);
    return out;
  }
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  out += op_table(operators, limit, width);
  if (!operators.device_rows.empty()) {
    out += device_table(operators, limit, width);
    out += fmt::format(
        "  device time attributed to ops: {} of {} ({}); unattributed: {} in {} activities\n",
        format_duration(operators.attributed_device_ns), format_duration(operators.device_total_ns),
        format_percent(operators.attributed_device_share),
        format_duration(operators.unattributed_device_ns),
        count(operators.unattributed_activities));
  }
  if (operators.ops_outside_scope > 0) {
    out += fmt::format("  {} ops start outside the step window and are not counted\n",
                       count(operators.ops_outside_scope));
  }
  return out;
}

}  // namespace stepscope::render
