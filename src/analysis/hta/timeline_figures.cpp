// The union-based figures of one rank: temporal breakdown (§3), kernel-class labels (§4.2) and
// communication/computation overlap (§6.1), all on HTA's merged intervals.
#include <algorithm>
#include <array>
#include <limits>

#include "analysis/hta/gpu_figures.h"
#include "analysis/hta/stats.h"

namespace stepscope::hta {

namespace {

// `kernel_type_to_analysis` of `get_gpu_kernel_breakdown` with memory kernels; the status bit of
// a class is 1 << its position. OTHER rows take no part.
constexpr std::array<KernelType, 3> kLabelTypes = {KernelType::kComputation,
                                                   KernelType::kCommunication, KernelType::kMemory};

struct Edge {
  std::int64_t time;
  int status;  // +value at a start, −value at an end
};

// The status sweep both `_get_gpu_kernel_type_time` and `get_comm_comp_overlap` do: sort the
// start/end points of merged intervals by time, take the running sum of statuses, and add each
// segment's length to its running value. Starts go first at equal times (HTA's sort order is
// unspecified there), which leaves zero-length rows such as `COMPUTATION overlapping MEMORY: 0`.
std::map<int, std::int64_t> running_lengths(std::vector<Edge> edges) {
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.time != b.time ? a.time < b.time : a.status > b.status;
  });
  std::map<int, std::int64_t> lengths;
  int running = 0;
  for (std::size_t k = 0; k + 1 < edges.size(); ++k) {
    running += edges[k].status;
    lengths[running] += edges[k + 1].time - edges[k].time;
  }
  return lengths;
}

void add_edges(const std::vector<Interval>& merged, int value, std::vector<Edge>& edges) {
  for (const Interval& i : merged) {
    edges.push_back({i.start, value});
    edges.push_back({i.end, -value});
  }
}

// The label of a running status: the classes whose bit is set, in kLabelTypes order.
std::string label_of(int running) {
  std::string label;
  for (std::size_t t = 0; t < kLabelTypes.size(); ++t) {
    if ((running & (1 << t)) == 0) continue;
    if (!label.empty()) label += " overlapping ";
    label += to_string(kLabelTypes[t]);
  }
  return label;
}

double percent_of(std::int64_t part, std::int64_t whole) {
  if (whole == 0) return 0;
  return round_to(100.0 * static_cast<double>(part) / static_cast<double>(whole), 2);
}

}  // namespace

std::vector<Interval> hta_merged(const RankRows& rows, std::optional<KernelType> type) {
  std::vector<Interval> intervals;
  for (const Row& row : rows.kept) {
    if (row.stream == -1 || (type && row.type != *type)) {
      continue;
    }
    intervals.push_back({row.start_ns, row.end_ns});
  }
  std::stable_sort(intervals.begin(), intervals.end(),
                   [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> merged;
  std::int64_t running_end = std::numeric_limits<std::int64_t>::min();
  for (const Interval& i : intervals) {
    if (merged.empty() || i.start > running_end) {
      merged.push_back(i);
    } else {
      merged.back().end = std::max(merged.back().end, i.end);
    }
    running_end = std::max(running_end, i.end);
  }
  return merged;
}

std::int64_t hta_length(const std::vector<Interval>& merged) {
  std::int64_t total = 0;
  for (const Interval& i : merged) total += i.end - i.start;
  return total;
}

// `BreakdownAnalysis.get_temporal_breakdown` / `_get_idle_time_for_kernels`: the span runs from
// the first merged start to the last merged end.
Temporal temporal_breakdown(const RankRows& rows) {
  Temporal t;
  const std::vector<Interval> busy = hta_merged(rows, std::nullopt);
  if (busy.empty()) return t;
  t.kernel_span_ns = busy.back().end - busy.front().start;
  t.idle_ns = t.kernel_span_ns - hta_length(busy);
  t.compute_ns = hta_length(hta_merged(rows, KernelType::kComputation));
  t.non_compute_ns = t.kernel_span_ns - t.compute_ns - t.idle_ns;
  t.idle_percent = percent_of(t.idle_ns, t.kernel_span_ns);
  t.compute_percent = percent_of(t.compute_ns, t.kernel_span_ns);
  t.non_compute_percent = percent_of(t.non_compute_ns, t.kernel_span_ns);
  return t;
}

// `_get_gpu_kernel_type_time`: positive running statuses become labels.
std::map<std::string, std::int64_t> class_labels(const RankRows& rows) {
  std::vector<Edge> edges;
  for (std::size_t t = 0; t < kLabelTypes.size(); ++t) {
    add_edges(hta_merged(rows, kLabelTypes[t]), 1 << t, edges);
  }
  std::map<std::string, std::int64_t> labels;
  for (const auto& [running, length] : running_lengths(std::move(edges))) {
    if (running > 0) labels[label_of(running)] += length;
  }
  return labels;
}

// `CommunicationAnalysis.get_comm_comp_overlap`: time at running status 3 (communication 1,
// computation 2) over the merged communication time; null where pandas divides by zero.
std::optional<double> comm_comp_overlap(const RankRows& rows) {
  const std::vector<Interval> comm = hta_merged(rows, KernelType::kCommunication);
  const std::int64_t comm_length = hta_length(comm);
  if (comm_length == 0) return std::nullopt;
  std::vector<Edge> edges;
  add_edges(comm, 1, edges);
  add_edges(hta_merged(rows, KernelType::kComputation), 2, edges);
  const std::map<int, std::int64_t> lengths = running_lengths(std::move(edges));
  const auto overlap = lengths.find(3);
  const std::int64_t overlap_length = overlap == lengths.end() ? 0 : overlap->second;
  return round_to(100.0 * static_cast<double>(overlap_length) / static_cast<double>(comm_length),
                  2);
}

}  // namespace stepscope::hta
