#include "analysis/hta/launch_figures.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace stepscope::hta {

namespace {

constexpr std::int64_t kRuntimeCutoffNs = 50'000;
constexpr std::int64_t kDelayCutoffNs = 100'000;

// The launch names of the launch statistics (with memory events) and of the queue summary: two
// lists in HTA that disagree (metrics.md §7, §8).
bool is_stats_launch(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kNames = {
      "cudaLaunchKernel", "cudaLaunchKernelExC", "runFunction - job_prep_and_submit_for_execution",
      "cudaMemcpyAsync", "cudaMemsetAsync"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool is_queue_launch(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "cudaLaunchKernel",  "cudaLaunchKernelExC", "cuLaunchKernel",  "cuLaunchKernelEx",
      "cudaMemcpyAsync",   "cudaMemsetAsync",     "hipLaunchKernel", "hipExtModuleLaunchKernel",
      "hipMemcpyAsync",    "hipMemsetAsync",      "hipMemcpyWithStream",
      "runFunction - job_prep_and_submit_for_execution"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

}  // namespace

LaunchStats launch_statistics(const RankRows& rows) {
  const Trace& trace = *rows.trace;
  std::unordered_map<std::int64_t, std::vector<const Row*>> activities;
  for (const Row& row : rows.kept) {
    if (row.stream != -1 && row.correlation >= 0) activities[row.correlation].push_back(&row);
  }
  LaunchStats stats;
  for (const Row& call : rows.kept) {
    if (call.stream != -1 || !is_stats_launch(trace.name_of(call.event))) continue;
    auto found = activities.find(call.correlation);
    if (found == activities.end()) continue;
    for (const Row* activity : found->second) {
      const std::int64_t delay = std::max<std::int64_t>(0, activity->start_ns - call.end_ns);
      ++stats.pairs;
      stats.cpu_duration_ns += call.dur_ns();
      stats.gpu_duration_ns += activity->dur_ns();
      stats.launch_delay_ns += delay;
      stats.cpu_duration_over_50us += call.dur_ns() > kRuntimeCutoffNs ? 1 : 0;
      stats.launch_delay_over_100us += delay > kDelayCutoffNs ? 1 : 0;
    }
  }
  return stats;
}

std::vector<QueueStream> queue_lengths(const RankRows& rows) {
  const Trace& trace = *rows.trace;
  std::unordered_map<std::int64_t, std::int64_t> launch_start;
  for (const Row& row : rows.kept) {
    if (!row.gpu_side && is_queue_launch(trace.name_of(row.event))) {
      launch_start.try_emplace(row.correlation, row.start_ns);
    }
  }
  struct Point {
    std::int64_t time;
    int delta;
  };
  std::map<std::int64_t, std::vector<Point>> streams;
  for (const Row& row : rows.kept) {
    if (row.stream == -1) continue;
    auto launch = launch_start.find(row.correlation);
    if (launch == launch_start.end()) continue;
    streams[row.stream].push_back({launch->second, +1});
    streams[row.stream].push_back({row.start_ns, -1});
  }
  std::vector<QueueStream> out;
  for (auto& [stream, points] : streams) {
    // Equal times: decrements first (HTA's order is unspecified; metrics.md §8).
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
      return a.time != b.time ? a.time < b.time : a.delta < b.delta;
    });
    QueueStream queue;
    queue.stream = stream;
    std::int64_t depth = 0;
    double total = 0;
    queue.max = INT64_MIN;
    for (const Point& point : points) {
      depth += point.delta;
      total += static_cast<double>(depth);
      queue.max = std::max(queue.max, depth);
    }
    queue.samples = static_cast<std::int64_t>(points.size());
    queue.mean = queue.samples > 0 ? total / static_cast<double>(queue.samples) : 0;
    out.push_back(queue);
  }
  return out;
}

}  // namespace stepscope::hta
