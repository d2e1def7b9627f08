#include "stepscope/analysis/kernel_breakdown.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "stepscope/intervals.h"

namespace stepscope {

namespace {

constexpr std::size_t kClassCount = 3;

std::size_t class_index(ActivityClass c) {
  switch (c) {
    case ActivityClass::kCommunication:
      return 1;
    case ActivityClass::kMemory:
      return 2;
    default:
      return 0;
  }
}

// Running statistics per kernel name (Welford: stable for millions of instances).
struct NameStats {
  ActivityClass activity_class = ActivityClass::kComputation;
  std::int64_t count = 0;
  std::int64_t total = 0;
  std::int64_t min = INT64_MAX;
  std::int64_t max = INT64_MIN;
  double mean = 0;
  double m2 = 0;
  void add(std::int64_t duration) {
    ++count;
    total += duration;
    min = std::min(min, duration);
    max = std::max(max, duration);
    const double delta = static_cast<double>(duration) - mean;
    mean += delta / static_cast<double>(count);
    m2 += delta * (static_cast<double>(duration) - mean);
  }
};

struct DeviceAccumulator {
  std::vector<Interval> by_class[kClassCount];
  std::unordered_map<StringId, NameStats> names;
  std::int64_t activity_ns = 0;
};

// Sweeps the three class unions together and sums the time of each combination.
std::vector<OverlapLabel> overlap_labels(const DeviceAccumulator& device) {
  struct Edge {
    std::int64_t time;
    std::size_t cls;
    int delta;
  };
  // A merged set's edges already come in time order (its intervals are disjoint and sorted), so
  // the three classes are merged rather than sorted. Edges at one time may come in any order:
  // the time between them is 0 and counts nowhere.
  auto by_time = [](const Edge& a, const Edge& b) { return a.time < b.time; };
  std::vector<Edge> edges;
  for (std::size_t c = 0; c < kClassCount; ++c) {
    const IntervalSet merged = IntervalSet::from_sorted(device.by_class[c]);
    const std::size_t before = edges.size();
    for (const Interval& i : merged.intervals()) {
      edges.push_back({i.start, c, +1});
      edges.push_back({i.end, c, -1});
    }
    std::inplace_merge(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(before),
                       edges.end(), by_time);
  }
  std::int64_t per_mask[8] = {};
  int active[kClassCount] = {};
  for (std::size_t k = 0; k + 1 <= edges.size(); ++k) {
    active[edges[k].cls] += edges[k].delta;
    if (k + 1 == edges.size()) break;
    const std::int64_t length = edges[k + 1].time - edges[k].time;
    unsigned mask = 0;
    for (std::size_t c = 0; c < kClassCount; ++c) mask |= active[c] > 0 ? (1U << c) : 0U;
    if (mask != 0 && length > 0) per_mask[mask] += length;
  }
  std::int64_t total = 0;
  for (unsigned mask = 1; mask < 8; ++mask) total += per_mask[mask];
  std::vector<OverlapLabel> labels;
  for (unsigned mask = 1; mask < 8; ++mask) {
    if (per_mask[mask] == 0) continue;
    OverlapLabel label;
    label.computation = (mask & 1U) != 0;
    label.communication = (mask & 2U) != 0;
    label.memory = (mask & 4U) != 0;
    label.ns = per_mask[mask];
    label.share = total > 0 ? static_cast<double>(label.ns) / static_cast<double>(total) : 0;
    labels.push_back(label);
  }
  std::sort(labels.begin(), labels.end(),
            [](const OverlapLabel& a, const OverlapLabel& b) { return a.ns > b.ns; });
  return labels;
}

KernelRow make_row(const Trace& trace, StringId name, const NameStats& s, std::int64_t base) {
  KernelRow row;
  row.name = std::string(trace.strings.view(name));
  row.activity_class = s.activity_class;
  row.count = s.count;
  row.total_ns = s.total;
  row.mean_ns = s.mean;
  row.min_ns = s.min;
  row.max_ns = s.max;
  row.std_ns = s.count > 1 ? std::sqrt(s.m2 / static_cast<double>(s.count - 1)) : 0.0;
  row.share = base > 0 ? static_cast<double>(s.total) / static_cast<double>(base) : 0.0;
  return row;
}

DeviceKernels summarize(const Trace& trace, std::int32_t id, const DeviceAccumulator& acc,
                        std::size_t top) {
  DeviceKernels device;
  device.device = id;
  device.labels = overlap_labels(acc);
  device.activity_ns = acc.activity_ns;
  device.distinct_names = static_cast<std::int64_t>(acc.names.size());
  std::vector<KernelRow> rows;
  for (const auto& [name, stats] : acc.names)
    rows.push_back(make_row(trace, name, stats, acc.activity_ns));
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r < top) {
      device.top.push_back(rows[r]);
    } else {
      device.others_count += rows[r].count;
      device.others_ns += rows[r].total_ns;
    }
    const std::size_t c = class_index(rows[r].activity_class);
    if (device.top_by_class[c].size() < top) {
      device.top_by_class[c].push_back(rows[r]);
    } else {
      device.others_count_by_class[c] += rows[r].count;
      device.others_ns_by_class[c] += rows[r].total_ns;
    }
  }
  return device;
}

}  // namespace

std::string OverlapLabel::name() const {
  std::string text;
  auto add = [&text](bool on, const char* part) {
    if (!on) return;
    if (!text.empty()) text += "+";
    text += part;
  };
  add(computation, "computation");
  add(communication, "communication");
  add(memory, "memory");
  return text;
}

KernelBreakdownResult compute_kernel_breakdown(const Trace& trace, const StepsResult& steps,
                                               const AnalysisOptions& options) {
  KernelBreakdownResult result;
  if (!steps.window) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const Interval window = *steps.window;
  std::map<std::int32_t, DeviceAccumulator> devices;
  ActivityClassifier classify(trace);
  const EventTable& e = trace.events;
  for (const EventIndex i : e.device_activities) {
    const ActivityClass c = classify(i);
    if (c == ActivityClass::kNotActivity) continue;
    // The class partition covers the same W-clipped time as the temporal breakdown (§4.2 =
    // §3); the per-kernel statistics take whole instances that start in W (§4.3).
    const Interval inside{std::max(e.start_ns[i], window.start), std::min(e.end_ns(i), window.end)};
    if (inside.start >= inside.end) continue;
    DeviceAccumulator& device = devices[trace.activity_device(i)];
    device.by_class[class_index(c)].push_back(inside);
    if (e.start_ns[i] < window.start) continue;
    NameStats& stats = device.names[e.name[i]];
    stats.activity_class = c;
    stats.add(e.dur_ns[i]);
    device.activity_ns += e.dur_ns[i];
  }
  for (const auto& [id, acc] : devices) {
    result.devices.push_back(
        summarize(trace, id, acc, static_cast<std::size_t>(std::max(options.top, 1))));
  }
  result.applicable = !result.devices.empty();
  if (!result.applicable) result.not_applicable_reason = "no GPU activity";
  return result;
}

}  // namespace stepscope
