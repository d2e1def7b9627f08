#include "render/terminal/step_breakdown_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string mean_table(const StepBreakdownResult& breakdown) {
  TextTable table;
  table.add_column("role", true);
  table.add_column("mean per step");
  table.add_column("share");
  const RoleTimes& mean = breakdown.mean;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    const auto role = static_cast<StepRole>(r);
    table.add_row({std::string(to_string(role)), format_duration(mean[role]),
                   format_percent(share(mean[role], mean.total_ns))});
    if (role == StepRole::kRuntime && breakdown.mode != Mode::kCompatTb) {
      table.add_row({"  of which sync", format_duration(mean.runtime_sync_ns),
                     format_percent(share(mean.runtime_sync_ns, mean.total_ns))});
    }
  }
  table.add_row({"step", format_duration(mean.total_ns), format_percent(1.0)});
  return table.render();
}

std::string step_table(const StepBreakdownResult& breakdown, int top) {
  TextTable table;
  table.add_column("step");
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    table.add_column(std::string(to_string(static_cast<StepRole>(r))));
  }
  table.add_column("step");
  const std::size_t limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < breakdown.steps.size() && i < limit; ++i) {
    const StepBreakdownRow& row = breakdown.steps[i];
    std::vector<std::string> cells = {fmt::format("#{}", row.step_number)};
    for (std::int64_t ns : row.roles.ns) cells.push_back(format_ms(ns));
    cells.push_back(format_ms(row.roles.total_ns));
    table.add_row(std::move(cells));
  }
  return table.render();
}

}  // namespace

std::string render_text(const StepBreakdownResult& breakdown, int top) {
  std::string out = heading("Step-time breakdown");
  if (!breakdown.applicable) {
    return out + "  not applicable: " + printable(breakdown.not_applicable_reason) + "\n";
  }
  out += fmt::format(
      "  mode {}, mean over {} kept steps; each role gets only the time no "
      "earlier role took\n",
      to_string(breakdown.mode), breakdown.steps.size());
  out += mean_table(breakdown);
  out += step_table(breakdown, top);
  if (breakdown.steps.size() > static_cast<std::size_t>(std::max(top, 1))) {
    out += fmt::format("  … {} more steps (see --json)\n",
                       breakdown.steps.size() - static_cast<std::size_t>(std::max(top, 1)));
  }
  for (const std::string& quirk : breakdown.quirks) {
    out += "  tb_plugin artefact reproduced: " + printable(quirk, 100) + "\n";
  }
  return out;
}

}  // namespace stepscope::render
