#include "stepscope/analysis/hta/hta_report.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "analysis/hta/gpu_figures.h"
#include "analysis/hta/launch_figures.h"
#include "analysis/hta/rows.h"
#include "analysis/hta/stats.h"

namespace stepscope::hta {

namespace {

// `StragglerAnalysis.get_profiler_steps`: the step numbers left in HTA's scope on any rank.
std::vector<std::int64_t> profiler_steps(const std::vector<RankRows>& ranks) {
  std::set<std::int64_t> numbers;
  for (const RankRows& rank : ranks) {
    for (const Row& row : rank.kept) {
      const std::string_view name = rank.trace->name_of(row.event);
      if (!is_profiler_step_name(name)) continue;
      std::int64_t number = 0;
      const std::string_view digits = name.substr(kProfilerStepPrefix.size());
      const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), number);
      if (parsed.ec == std::errc()) numbers.insert(number);
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

// `get_gpu_kernel_breakdown`: the labels are summed over ranks, sorted by sum, and shown as a
// percentage of all labels, rounded to 1 decimal.
std::vector<ClassLabel> kernel_classes(const std::vector<RankRows>& ranks) {
  std::map<std::string, std::int64_t> sums;
  for (const RankRows& rank : ranks) {
    for (const auto& [label, ns] : class_labels(rank)) sums[label] += ns;
  }
  std::int64_t total = 0;
  for (const auto& [label, ns] : sums) total += ns;
  std::vector<ClassLabel> labels;
  for (const auto& [label, ns] : sums) {
    const double share = total != 0 ? static_cast<double>(ns) / static_cast<double>(total) : 0;
    labels.push_back({label, ns, round_to(100.0 * share, 1)});
  }
  std::stable_sort(labels.begin(), labels.end(),
                   [](const ClassLabel& a, const ClassLabel& b) { return a.sum_ns > b.sum_ns; });
  return labels;
}

bool any_folded_class(const std::vector<RankFigures>& ranks) {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankFigures& rank) {
    return std::any_of(rank.kernels.begin(), rank.kernels.end(),
                       [](const KernelStats& k) { return k.hta_stats_are_per_name_totals; });
  });
}

bool any_sync_row(const std::vector<RankRows>& ranks) {
  return std::any_of(ranks.begin(), ranks.end(), [](const RankRows& rank) {
    return std::any_of(rank.kept.begin(), rank.kept.end(), [&](const Row& row) {
      return row.stream != -1 && rank.trace->events.event_class[row.event] == EventClass::kGpuSync;
    });
  });
}

// The HTA artefacts this report carries (docs/metrics/00-conventions-for-every-figure.md §0.1: a
// compat result says so).
std::vector<std::string> quirks_of(const HtaReport& report, const std::vector<RankRows>& ranks) {
  std::vector<std::string> quirks;
  if (report.step_filter) quirks.emplace_back("last_step_dropped");
  if (report.rounding) quirks.emplace_back("timestamps_rounded_to_whole_microseconds");
  if (any_sync_row(ranks)) quirks.emplace_back("sync_markers_counted_as_busy");
  if (any_folded_class(report.ranks)) quirks.emplace_back("kernel_stats_are_per_name_totals");
  quirks.emplace_back("launch_statistics_know_only_cuda_launch_names");
  quirks.emplace_back("launch_delays_summed_and_clipped_at_zero");
  quirks.emplace_back("idle_gaps_from_previous_row_in_start_order");
  return quirks;
}

}  // namespace

HtaReport compute_hta_report(const TraceSet& traces, const AnalysisOptions& options) {
  HtaReport report;
  const std::vector<RankRows> ranks = build_rows(traces, options.hta_rounding, report.step_filter);
  report.rounding =
      options.hta_rounding && std::any_of(traces.ranks.begin(), traces.ranks.end(),
                                          [](const Trace& t) { return trace_needs_rounding(t); });
  report.profiler_steps = profiler_steps(ranks);
  report.kernel_classes = kernel_classes(ranks);
  for (const RankRows& rank : ranks) report.ranks.push_back(figures_of(rank));
  report.quirks = quirks_of(report, ranks);
  return report;
}

}  // namespace stepscope::hta
