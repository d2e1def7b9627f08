#include "analysis/hta/launch_figures.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "analysis/hta/stats.h"

namespace stepscope::hta {

namespace {

constexpr std::int64_t kRuntimeCutoffNs = 50'000;
constexpr std::int64_t kDelayCutoffNs = 100'000;

// The launch names of the launch statistics (with memory events) and of the queue summary: two
// lists in HTA that disagree (docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7, §8).
bool is_stats_launch(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kNames = {
      "cudaLaunchKernel", "cudaLaunchKernelExC", "runFunction - job_prep_and_submit_for_execution",
      "cudaMemcpyAsync", "cudaMemsetAsync"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool is_queue_launch(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "cudaLaunchKernel",    "cudaLaunchKernelExC",
      "cuLaunchKernel",      "cuLaunchKernelEx",
      "cudaMemcpyAsync",     "cudaMemsetAsync",
      "hipLaunchKernel",     "hipExtModuleLaunchKernel",
      "hipMemcpyAsync",      "hipMemsetAsync",
      "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

void add_pair(const Row& call, const Row& activity, LaunchStats& stats) {
  const std::int64_t delay = std::max<std::int64_t>(0, activity.start_ns - call.end_ns);
  ++stats.pairs;
  stats.cpu_duration_ns += call.dur_ns();
  stats.gpu_duration_ns += activity.dur_ns();
  stats.launch_delay_ns += delay;
  // The cutoffs only select what HTA plots (`visualize_cuda_kernel_launch_stats`).
  stats.cpu_duration_over_50us += call.dur_ns() > kRuntimeCutoffNs ? 1 : 0;
  stats.launch_delay_over_100us += delay > kDelayCutoffNs ? 1 : 0;
  stats.short_kernels +=
      call.dur_ns() <= kRuntimeCutoffNs && activity.dur_ns() < call.dur_ns() ? 1 : 0;
}

}  // namespace

// `CudaKernelAnalysis.cuda_kernel_launch_stats`: C = the correlations of rows with a launch name;
// every host row (stream −1) with a correlation in C pairs with every device row (stream ≠ −1)
// of the same correlation, whatever the host row's name.
LaunchStats launch_statistics(const RankRows& rows) {
  const Trace& trace = *rows.trace;
  std::unordered_set<std::int64_t> launch_correlations;
  for (const Row& row : rows.kept) {
    if (is_stats_launch(trace.name_of(row.event))) launch_correlations.insert(row.correlation);
  }
  std::unordered_map<std::int64_t, std::vector<const Row*>> activities;
  for (const Row& row : rows.kept) {
    if (row.stream != -1 && launch_correlations.count(row.correlation) != 0) {
      activities[row.correlation].push_back(&row);
    }
  }
  LaunchStats stats;
  for (const Row& call : rows.kept) {
    if (call.stream != -1) continue;
    auto found = activities.find(call.correlation);
    if (found == activities.end()) continue;
    for (const Row* activity : found->second) add_pair(call, *activity, stats);
  }
  return stats;
}

namespace {

struct Point {
  std::int64_t time;
  int delta;
};

// `TraceCounters._get_queue_length_time_series_for_rank`: each launch call adds +1 at its start
// once per activity it launched (the join on correlation), on that activity's stream; each such
// activity adds −1 at its start.
std::map<std::int64_t, std::vector<Point>> queue_points(const RankRows& rows) {
  const Trace& trace = *rows.trace;
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> launch_starts;
  for (const Row& row : rows.kept) {
    if (is_queue_launch(trace.name_of(row.event))) {
      launch_starts[row.correlation].push_back(row.start_ns);
    }
  }
  std::map<std::int64_t, std::vector<Point>> streams;
  for (const Row& row : rows.kept) {
    if (row.stream == -1) continue;
    auto launch = launch_starts.find(row.correlation);
    if (launch == launch_starts.end()) continue;
    for (std::int64_t start : launch->second) streams[row.stream].push_back({start, +1});
    streams[row.stream].push_back({row.start_ns, -1});
  }
  return streams;
}

// pandas `describe()` of the running sums after each point.
QueueStream summarize(std::int64_t stream, std::vector<Point>& points) {
  // Equal times: decrements first (HTA's order is unspecified;
  // docs/metrics/08-hta-queue-length-summary.md §8).
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  Accumulator depths;
  std::vector<double> samples;
  samples.reserve(points.size());
  std::int64_t depth = 0;
  for (const Point& point : points) {
    depth += point.delta;
    depths.add(depth);
    samples.push_back(static_cast<double>(depth));
  }
  std::sort(samples.begin(), samples.end());
  QueueStream queue;
  queue.stream = stream;
  queue.samples = depths.count;
  queue.mean = depths.mean;
  queue.std = depths.sample_std();
  queue.min = depths.min;
  queue.p25 = quantile_of_sorted(samples, 0.25);
  queue.p50 = quantile_of_sorted(samples, 0.5);
  queue.p75 = quantile_of_sorted(samples, 0.75);
  queue.max = depths.max;
  return queue;
}

}  // namespace

std::vector<QueueStream> queue_lengths(const RankRows& rows) {
  std::vector<QueueStream> out;
  for (auto& [stream, points] : queue_points(rows)) out.push_back(summarize(stream, points));
  return out;
}

}  // namespace stepscope::hta
