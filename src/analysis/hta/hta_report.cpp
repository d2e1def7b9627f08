#include "stepscope/analysis/hta/hta_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/hta/gpu_figures.h"
#include "analysis/hta/launch_figures.h"
#include "analysis/hta/rows.h"

namespace stepscope::hta {

namespace {

std::vector<std::int64_t> profiler_steps(const std::vector<RankRows>& ranks) {
  std::set<std::int64_t> numbers;
  for (const RankRows& rank : ranks) {
    for (const Row& row : rank.kept) {
      const std::string_view name = rank.trace->name_of(row.event);
      if (is_profiler_step_name(name)) numbers.insert(std::stoll(std::string(name.substr(13))));
    }
  }
  return {numbers.begin(), numbers.end()};
}

RankFigures figures_of(const RankRows& rows) {
  RankFigures figures;
  figures.rank = rows.trace->rank;
  figures.has_gpu_rows = std::any_of(rows.kept.begin(), rows.kept.end(),
                                     [](const Row& row) { return row.stream != -1; });
  if (!figures.has_gpu_rows) return figures;
  figures.temporal = temporal_breakdown(rows);
  kernel_table(rows, figures);
  figures.idle = idle_time(rows);
  figures.comm_comp_overlap_percent = comm_comp_overlap(rows);
  figures.launches = launch_statistics(rows);
  figures.queues = queue_lengths(rows);
  return figures;
}

}  // namespace

HtaReport compute_hta_report(const TraceSet& traces, const AnalysisOptions& options) {
  HtaReport report;
  const std::vector<RankRows> ranks = build_rows(traces, options.hta_rounding, report.step_filter);
  report.rounding = options.hta_rounding &&
                    std::any_of(traces.ranks.begin(), traces.ranks.end(),
                                [](const Trace& t) { return trace_needs_rounding(t); });
  report.profiler_steps = profiler_steps(ranks);
  std::map<std::string, std::int64_t> labels;
  for (const RankRows& rank : ranks) {
    report.ranks.push_back(figures_of(rank));
    for (const auto& [label, ns] : class_labels(rank)) labels[label] += ns;
  }
  std::int64_t total = 0;
  for (const auto& [label, ns] : labels) total += ns;
  for (const auto& [label, ns] : labels) {
    report.kernel_classes.push_back(
        {label, ns, total > 0 ? round_to(100.0 * static_cast<double>(ns) / static_cast<double>(total), 1) : 0});
  }
  std::stable_sort(report.kernel_classes.begin(), report.kernel_classes.end(),
                   [](const ClassLabel& a, const ClassLabel& b) { return a.sum_ns > b.sum_ns; });
  if (report.step_filter) report.quirks.emplace_back("last_step_dropped");
  if (report.rounding) report.quirks.emplace_back("timestamps_rounded_to_whole_microseconds");
  report.quirks.emplace_back("sync_markers_counted_as_busy");
  for (const RankFigures& rank : report.ranks) {
    if (std::any_of(rank.kernels.begin(), rank.kernels.end(),
                    [](const KernelStats& k) { return k.hta_stats_are_per_name_totals; })) {
      report.quirks.emplace_back("kernel_stats_are_per_name_totals");
      break;
    }
  }
  return report;
}

}  // namespace stepscope::hta
