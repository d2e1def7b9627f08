#include "analysis/hta/gpu_figures.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_map>

#include "stepscope/intervals.h"

namespace stepscope::hta {

namespace {

constexpr std::int64_t kKernelWaitNs = 30'000;  // `consecutive_kernel_delay=30` (µs)
constexpr std::size_t kFoldAfterNames = 10;     // `num_kernels=10`
constexpr double kFoldQuantile = 0.8;           // `duration_ratio=0.8`

bool in_g(const Row& row) { return row.stream != -1; }

KernelType type_of(const RankRows& rows, const Row& row) {
  return kernel_type(rows.trace->name_of(row.event));
}

IntervalSet union_of(const RankRows& rows, std::optional<KernelType> type) {
  std::vector<Interval> intervals;
  for (const Row& row : rows.kept) {
    if (!in_g(row) || (type && type_of(rows, row) != *type)) continue;
    intervals.push_back({row.start_ns, row.end_ns});
  }
  return IntervalSet::from_unsorted(std::move(intervals));
}

struct Accumulator {
  std::int64_t count = 0;
  std::int64_t sum = 0;
  std::int64_t min = INT64_MAX;
  std::int64_t max = INT64_MIN;
  double sum_squares = 0;
};

KernelStats finish(std::string name, KernelType type, const Accumulator& a) {
  KernelStats stats;
  stats.name = std::move(name);
  stats.type = type;
  stats.count = a.count;
  stats.sum_ns = a.sum;
  stats.min_ns = a.min;
  stats.max_ns = a.max;
  stats.mean_ns = static_cast<double>(a.sum) / static_cast<double>(a.count);
  if (a.count > 1) {
    const double n = static_cast<double>(a.count);
    const double variance = (a.sum_squares - n * stats.mean_ns * stats.mean_ns) / (n - 1);
    stats.std_ns = std::sqrt(std::max(variance, 0.0));
  }
  return stats;
}

// pandas' default quantile: linear interpolation between order statistics.
double quantile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * p;
  const auto low = static_cast<std::size_t>(std::floor(h));
  const std::size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (h - static_cast<double>(low)) * (values[high] - values[low]);
}

// `_aggr_gpu_kernel_time`: past ten names, the tail and everything after the 0.8 quantile of the
// running totals become `others`, re-aggregated over per-name sums.
void fold(std::vector<KernelStats>& names, KernelType type, std::vector<KernelStats>& others) {
  if (names.size() <= kFoldAfterNames) return;
  std::vector<double> running;
  double total = 0;
  for (const KernelStats& k : names) running.push_back(total += static_cast<double>(k.sum_ns));
  const double cutoff = quantile(running, kFoldQuantile);
  Accumulator folded;
  for (std::size_t k = 0; k < names.size(); ++k) {
    names[k].hta_stats_are_per_name_totals = true;
    if (running[k] <= cutoff && k < kFoldAfterNames) continue;
    ++folded.count;
    folded.sum += names[k].sum_ns;
    folded.min = std::min(folded.min, names[k].sum_ns);
    folded.max = std::max(folded.max, names[k].sum_ns);
    folded.sum_squares += static_cast<double>(names[k].sum_ns) * static_cast<double>(names[k].sum_ns);
  }
  if (folded.count > 0) others.push_back(finish("others", type, folded));
}

}  // namespace

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

Temporal temporal_breakdown(const RankRows& rows) {
  Temporal t;
  std::int64_t first = INT64_MAX;
  std::int64_t last = INT64_MIN;
  for (const Row& row : rows.kept) {
    if (!in_g(row)) continue;
    first = std::min(first, row.start_ns);
    last = std::max(last, row.end_ns);
  }
  if (first > last) return t;
  t.kernel_span_ns = last - first;
  const std::int64_t busy = union_of(rows, std::nullopt).measure();
  t.idle_ns = t.kernel_span_ns - busy;
  t.compute_ns = union_of(rows, KernelType::kComputation).measure();
  t.non_compute_ns = busy - t.compute_ns;
  const auto percent = [&t](std::int64_t part) {
    return t.kernel_span_ns > 0
               ? round_to(100.0 * static_cast<double>(part) / static_cast<double>(t.kernel_span_ns), 2)
               : 0.0;
  };
  t.idle_percent = percent(t.idle_ns);
  t.compute_percent = percent(t.compute_ns);
  t.non_compute_percent = percent(t.non_compute_ns);
  return t;
}

std::map<std::string, std::int64_t> class_labels(const RankRows& rows) {
  static constexpr std::array<KernelType, 3> kTypes = {
      KernelType::kComputation, KernelType::kCommunication, KernelType::kMemory};
  struct Edge {
    std::int64_t time;
    std::size_t type;
    int delta;
  };
  std::vector<Edge> edges;
  for (std::size_t t = 0; t < kTypes.size(); ++t) {
    const IntervalSet set = union_of(rows, kTypes[t]);
    for (const Interval& i : set.intervals()) {
      edges.push_back({i.start, t, +1});
      edges.push_back({i.end, t, -1});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.time < b.time; });
  std::map<std::string, std::int64_t> labels;
  std::array<int, 3> active{};
  for (std::size_t k = 0; k < edges.size(); ++k) {
    active[edges[k].type] += edges[k].delta;
    if (k + 1 == edges.size()) break;
    const std::int64_t length = edges[k + 1].time - edges[k].time;
    std::string label;
    for (std::size_t t = 0; t < kTypes.size(); ++t) {
      if (active[t] == 0) continue;
      if (!label.empty()) label += " overlapping ";
      label += to_string(kTypes[t]);
    }
    if (!label.empty() && length > 0) labels[label] += length;
  }
  return labels;
}

void kernel_table(const RankRows& rows, RankFigures& out) {
  std::array<std::unordered_map<StringId, Accumulator>, 3> by_type;
  for (const Row& row : rows.kept) {
    if (!in_g(row)) continue;
    const KernelType type = type_of(rows, row);
    if (type == KernelType::kOther) continue;
    Accumulator& a = by_type[static_cast<std::size_t>(type)][rows.trace->events.name[row.event]];
    const std::int64_t dur = row.dur_ns();
    ++a.count;
    a.sum += dur;
    a.min = std::min(a.min, dur);
    a.max = std::max(a.max, dur);
    a.sum_squares += static_cast<double>(dur) * static_cast<double>(dur);
  }
  for (std::size_t t = 0; t < by_type.size(); ++t) {
    std::vector<KernelStats> names;
    for (const auto& [name, a] : by_type[t]) {
      names.push_back(finish(std::string(rows.trace->strings.view(name)),
                             static_cast<KernelType>(t), a));
    }
    std::sort(names.begin(), names.end(), [](const KernelStats& a, const KernelStats& b) {
      return a.sum_ns != b.sum_ns ? a.sum_ns > b.sum_ns : a.name < b.name;
    });
    fold(names, static_cast<KernelType>(t), out.others);
    out.kernels.insert(out.kernels.end(), names.begin(), names.end());
  }
}

std::vector<IdleStream> idle_time(const RankRows& rows) {
  const Trace& trace = *rows.trace;
  // The correlation -> launch link is built before the step filter.
  std::unordered_map<std::int64_t, std::int64_t> launch_start;
  for (const Row& row : rows.all) {
    if (!row.gpu_side && row.correlation >= 0) launch_start.try_emplace(row.correlation, row.start_ns);
  }
  std::map<std::int64_t, std::vector<const Row*>> streams;
  for (const Row& row : rows.kept) {
    if (!in_g(row)) continue;
    const std::string_view category = trace.strings.view(trace.events.category[row.event]);
    static constexpr std::array<std::string_view, 7> kCategories = {
        "kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events"};
    if (std::find(kCategories.begin(), kCategories.end(), category) == kCategories.end()) continue;
    streams[row.stream].push_back(&row);
  }
  std::vector<IdleStream> out;
  for (auto& [stream, list] : streams) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Row* a, const Row* b) { return a->start_ns < b->start_ns; });
    IdleStream idle;
    idle.stream = stream;
    for (std::size_t k = 1; k < list.size(); ++k) {
      const Row& previous = *list[k - 1];
      const Row& row = *list[k];
      const std::int64_t gap = row.start_ns - previous.end_ns;
      auto launch = launch_start.find(row.correlation);
      if (launch != launch_start.end() && launch->second > previous.end_ns) {
        idle.host_wait_ns += gap;
      } else if (gap < kKernelWaitNs) {
        idle.kernel_wait_ns += gap;
      } else {
        idle.other_ns += gap;
      }
    }
    out.push_back(idle);
  }
  return out;
}

std::optional<double> comm_comp_overlap(const RankRows& rows) {
  const IntervalSet comm = union_of(rows, KernelType::kCommunication);
  if (comm.measure() == 0) return std::nullopt;
  const IntervalSet comp = union_of(rows, KernelType::kComputation);
  return round_to(100.0 * static_cast<double>(comp.intersect(comm).measure()) /
                      static_cast<double>(comm.measure()),
                  2);
}

}  // namespace stepscope::hta
