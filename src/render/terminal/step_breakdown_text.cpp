#include "render/terminal/step_breakdown_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

// A role no step spent time in (kernels, copies, communication on a CPU trace) is left out.
bool role_used(const StepBreakdownResult& breakdown, StepRole role) {
  if (breakdown.mean[role] != 0) return true;
  return std::any_of(breakdown.steps.begin(), breakdown.steps.end(),
                     [role](const StepBreakdownRow& row) { return row.roles[role] != 0; });
}

Importance role_importance(StepRole role) {
  switch (role) {
    case StepRole::kKernel:
    case StepRole::kDataLoader:
    case StepRole::kCpuExec:
      return Importance::kHigh;
    case StepRole::kMemset:
    case StepRole::kOther:
      return Importance::kLow;
    default:
      return Importance::kMedium;
  }
}

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string mean_table(const StepBreakdownResult& breakdown, std::size_t width) {
  TextTable table;
  table.add_column("role", true);
  table.add_column("mean per step");
  table.add_column("share");
  const RoleTimes& mean = breakdown.mean;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    const auto role = static_cast<StepRole>(r);
    if (!role_used(breakdown, role)) continue;
    table.add_row({std::string(to_string(role)), format_duration(mean[role]),
                   format_percent(share(mean[role], mean.total_ns))});
    if (role == StepRole::kRuntime && breakdown.mode != Mode::kCompatTb) {
      table.add_row({"  of which sync", format_duration(mean.runtime_sync_ns),
                     format_percent(share(mean.runtime_sync_ns, mean.total_ns))});
    }
  }
  table.add_row({"step", format_duration(mean.total_ns), format_percent(1.0)});
  return table.render("  ", width);
}

std::string step_table(const StepBreakdownResult& breakdown, int top, std::size_t width) {
  TextTable table;
  table.add_column("step");
  std::vector<StepRole> used;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    const auto role = static_cast<StepRole>(r);
    if (!role_used(breakdown, role)) continue;
    used.push_back(role);
    table.add_column(std::string(to_string(role)), false, role_importance(role));
  }
  table.add_column("step");
  const std::size_t limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < breakdown.steps.size() && i < limit; ++i) {
    const StepBreakdownRow& row = breakdown.steps[i];
    std::vector<std::string> cells = {fmt::format("#{}", row.step_number)};
    for (StepRole role : used) cells.push_back(format_ms(row.roles[role]));
    cells.push_back(format_ms(row.roles.total_ns));
    table.add_row(std::move(cells));
  }
  return table.render("  ", width);
}

}  // namespace

std::string render_text(const StepBreakdownResult& breakdown, int top, std::size_t width) {
  std::string out = heading("Step-time breakdown");
  if (!breakdown.applicable) {
    return out + "  not applicable: " + printable(breakdown.not_applicable_reason) + "\n";
  }
  out += fmt::format(
      "  mode {}, mean over {} kept {}; each role gets only the time no earlier role took\n",
      to_string(breakdown.mode), breakdown.steps.size(),
      breakdown.steps.size() == 1 ? "step" : "steps");
  out += mean_table(breakdown, width);
  out += step_table(breakdown, top, width);
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
