#include "stepscope/job/run_scaling.h"

#include <fmt/core.h>

#include <algorithm>

#include "job/job_internal.h"
#include "render/text_format.h"

namespace stepscope::job {

std::vector<RunScalingRow> compare_runs_scaling(const std::vector<std::string>& names,
                                                const std::vector<JobAnalysis>& jobs) {
  std::vector<RunScalingRow> rows;
  for (std::size_t i = 0; i < jobs.size() && i < names.size(); ++i) {
    RunScalingRow row;
    row.name = names[i];
    row.world_size = jobs[i].world_size > 0 ? jobs[i].world_size
                                            : static_cast<std::int64_t>(jobs[i].ranks.size());
    std::vector<double> p50;
    for (const RankRow& r : jobs[i].ranks) {
      if (r.steps > 0) p50.push_back(r.step_p50_ns);
    }
    row.step_ns = detail::median(p50);
    row.steps_per_second = row.step_ns > 0 ? 1e9 / row.step_ns : 0;
    rows.push_back(std::move(row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const RunScalingRow& a, const RunScalingRow& b) {
    return a.world_size < b.world_size;
  });
  if (!rows.empty() && rows.front().steps_per_second > 0) {
    for (RunScalingRow& row : rows) {
      row.efficiency = row.steps_per_second / rows.front().steps_per_second;
    }
  }
  return rows;
}

std::string render_scaling_text(const std::vector<RunScalingRow>& rows) {
  std::string out = render::heading("Scaling (throughput per rank against the smallest run)");
  out += fmt::format("  {:>10} {:>12} {:>16} {:>11}  {}\n", "world size", "step p50 ms",
                     "steps/s per rank", "efficiency", "run");
  for (const RunScalingRow& row : rows) {
    out += fmt::format("  {:>10} {:>12.2f} {:>16.2f} {:>11}  {}\n", row.world_size,
                       row.step_ns / 1e6, row.steps_per_second,
                       render::format_percent(row.efficiency), render::printable(row.name, 80));
  }
  return out;
}

}  // namespace stepscope::job
