// HTA's kernel table of one rank (§4.3, `BreakdownAnalysis._aggr_gpu_kernel_time`): per class,
// per-name statistics, and past ten names HTA's folding, whose re-aggregation over per-name sums
// turns every kept name's max/min/mean into its total and its std into 0.
#include <algorithm>
#include <array>
#include <unordered_map>

#include "analysis/hta/gpu_figures.h"
#include "analysis/hta/stats.h"

namespace stepscope::hta {

namespace {

constexpr std::size_t kNumKernels = 10;  // `num_kernels=10`
constexpr double kDurationRatio = 0.8;   // `duration_ratio=0.8`
constexpr std::array<KernelType, 3> kTableTypes = {KernelType::kComputation,
                                                   KernelType::kCommunication, KernelType::kMemory};

KernelStats stats_of(std::string name, KernelType type, const Accumulator& a) {
  KernelStats k;
  k.name = std::move(name);
  k.type = type;
  k.count = a.count;
  k.sum_ns = a.sum;
  k.mean_ns = a.mean;
  k.min_ns = a.min;
  k.max_ns = a.max;
  k.std_ns = a.sample_std();
  return k;
}

HtaKernelRow hta_row(const KernelStats& k, std::int64_t rank) {
  return {k.name,
          k.type,
          rank,
          k.sum_ns,
          static_cast<double>(k.max_ns),
          static_cast<double>(k.min_ns),
          k.mean_ns,
          k.std_ns};
}

// The per-name statistics of one class, sorted by sum (largest first; ties by name).
std::vector<KernelStats> class_names(const RankRows& rows, KernelType type) {
  std::unordered_map<StringId, Accumulator> by_name;
  for (const Row& row : rows.kept) {
    if (row.stream == -1 || row.type != type) continue;
    by_name[rows.trace->events.name[row.event]].add(row.dur_ns());
  }
  std::vector<KernelStats> names;
  names.reserve(by_name.size());
  for (const auto& [name, a] : by_name) {
    names.push_back(stats_of(std::string(rows.trace->strings.view(name)), type, a));
  }
  std::sort(names.begin(), names.end(), [](const KernelStats& a, const KernelStats& b) {
    return a.sum_ns != b.sum_ns ? a.sum_ns > b.sum_ns : a.name < b.name;
  });
  return names;
}

// The folding rule: `others` takes every name whose running total exceeds the 0.8 quantile of
// the running totals (not 80 % of the class time) and every name at position ≥ 10.
void mark_folded(std::vector<KernelStats>& names) {
  std::vector<double> running;
  running.reserve(names.size());
  double total = 0;
  for (const KernelStats& k : names) running.push_back(total += static_cast<double>(k.sum_ns));
  const double cutoff = quantile_of_sorted(running, kDurationRatio);  // ascending already
  for (std::size_t k = 0; k < names.size(); ++k) {
    names[k].hta_stats_are_per_name_totals = true;
    names[k].folded_into_others = running[k] > cutoff || k >= kNumKernels;
  }
}

// The re-aggregation over per-name sums: kept names show their total as max, min and mean.
void add_folded_rows(const std::vector<KernelStats>& names, std::int64_t rank, RankFigures& out) {
  Accumulator others;
  for (const KernelStats& k : names) {
    if (k.folded_into_others) {
      others.add(k.sum_ns);
      continue;
    }
    const auto sum = static_cast<double>(k.sum_ns);
    out.hta_kernel_table.push_back({k.name, k.type, rank, k.sum_ns, sum, sum, sum, 0});
  }
  if (others.count == 0) return;
  const KernelStats row = stats_of("others", names.front().type, others);
  out.others.push_back(row);
  out.hta_kernel_table.push_back(hta_row(row, rank));
}

}  // namespace

void kernel_table(const RankRows& rows, RankFigures& out) {
  for (KernelType type : kTableTypes) {
    std::vector<KernelStats> names = class_names(rows, type);
    if (names.size() > kNumKernels) {
      mark_folded(names);
      add_folded_rows(names, out.rank, out);
    } else {
      for (const KernelStats& k : names) out.hta_kernel_table.push_back(hta_row(k, out.rank));
    }
    out.kernels.insert(out.kernels.end(), names.begin(), names.end());
  }
  // `all_kernel_df.sort_values(by=["kernel_type", "name", "rank"])`, as strings.
  std::sort(out.hta_kernel_table.begin(), out.hta_kernel_table.end(),
            [](const HtaKernelRow& a, const HtaKernelRow& b) {
              const std::string_view ta = to_string(a.type);
              const std::string_view tb = to_string(b.type);
              return ta != tb ? ta < tb : a.name != b.name ? a.name < b.name : a.rank < b.rank;
            });
}

}  // namespace stepscope::hta
