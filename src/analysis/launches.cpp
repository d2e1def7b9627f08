#include "stepscope/analysis/launches.h"

#include <algorithm>
#include <array>
#include <map>

namespace stepscope {

namespace {

constexpr std::int64_t kRuntimeCutoffNs = 50'000;
constexpr std::int64_t kDelayCutoffNs = 100'000;

struct PairSamples {
  std::vector<double> cpu;
  std::vector<double> gpu;
  std::vector<double> delay;
};

struct QueuePoint {
  std::int64_t time;
  int delta;
};

// Depth over time from its change points: decrements before increments at equal times.
StreamQueue integrate(std::vector<QueuePoint> points, Interval window, std::int64_t limit) {
  std::stable_sort(points.begin(), points.end(), [](const QueuePoint& a, const QueuePoint& b) {
    return a.time != b.time ? a.time < b.time : a.delta < b.delta;
  });
  StreamQueue queue;
  std::int64_t depth = 0;
  double area = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    depth += points[k].delta;
    if (points[k].time >= window.start && points[k].time < window.end) {
      ++queue.samples;
      queue.max_depth = std::max(queue.max_depth, depth);
    }
    const std::int64_t from = std::max(points[k].time, window.start);
    const std::int64_t to =
        std::min(k + 1 < points.size() ? points[k + 1].time : window.end, window.end);
    if (to > from) {
      area += static_cast<double>(depth) * static_cast<double>(to - from);
      if (depth >= limit) queue.time_at_limit_ns += to - from;
    }
  }
  queue.time_weighted_mean = window.length() > 0 ? area / static_cast<double>(window.length()) : 0;
  return queue;
}

}  // namespace

std::string_view to_string(LaunchClass launch_class) {
  static constexpr std::array<std::string_view, kLaunchClassCount> kNames = {
      "kernel_launch", "graph_launch", "async_memory", "sync_memory"};
  return kNames[static_cast<std::size_t>(launch_class)];
}

std::optional<LaunchClass> classify_launch(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kKernel = {
      "cudaLaunchKernel",      "cudaLaunchKernelExC",      "cudaLaunchCooperativeKernel",
      "cuLaunchKernel",        "cuLaunchKernelEx",         "hipLaunchKernel",
      "hipModuleLaunchKernel", "hipExtModuleLaunchKernel", "hipExtLaunchKernel"};
  for (std::string_view k : kKernel) {
    if (name == k) return LaunchClass::kKernelLaunch;
  }
  if (name.rfind("runFunction", 0) == 0) return LaunchClass::kKernelLaunch;  // MTIA
  if (name == "cudaGraphLaunch" || name == "hipGraphLaunch") return LaunchClass::kGraphLaunch;
  const bool memory = name.find("Memcpy") != std::string_view::npos ||
                      name.find("Memset") != std::string_view::npos;
  if (!memory) return std::nullopt;
  return name.find("Async") != std::string_view::npos ? LaunchClass::kAsyncMemory
                                                      : LaunchClass::kSyncMemory;
}

LaunchResult compute_launches(const Trace& trace, const StepsResult& steps,
                              const AnalysisOptions& /*options*/) {
  LaunchResult result;
  if (!steps.window) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const Interval window = *steps.window;
  const EventTable& e = trace.events;
  std::array<PairSamples, kLaunchClassCount> samples;
  std::map<std::pair<std::int32_t, std::int64_t>, std::vector<QueuePoint>> queues;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_device_activity(e.event_class[i]) || e.launcher[i] == kNoEvent) continue;
    const EventIndex call = e.launcher[i];
    const std::optional<LaunchClass> launch_class = classify_launch(trace.name_of(call));
    if (!launch_class) continue;
    auto& points = queues[{trace.activity_device(i), trace.activity_stream(i)}];
    points.push_back({e.start_ns[call], +1});
    points.push_back({e.start_ns[i], -1});
    if (e.start_ns[call] < window.start || e.start_ns[call] >= window.end) continue;
    const std::size_t k = static_cast<std::size_t>(*launch_class);
    LaunchClassStats& stats = result.classes[k];
    const std::int64_t cpu = e.dur_ns[call];
    const std::int64_t gpu = e.dur_ns[i];
    const std::int64_t delay = e.start_ns[i] - e.end_ns(call);
    ++stats.count;
    stats.cpu_duration_total_ns += cpu;
    stats.gpu_duration_total_ns += gpu;
    stats.negative_delay_count += delay < 0 ? 1 : 0;
    stats.cpu_duration_over_50us += cpu > kRuntimeCutoffNs ? 1 : 0;
    stats.launch_delay_over_100us += delay > kDelayCutoffNs ? 1 : 0;
    stats.short_kernel_count += (cpu <= kRuntimeCutoffNs && gpu < cpu) ? 1 : 0;
    samples[k].cpu.push_back(static_cast<double>(cpu));
    samples[k].gpu.push_back(static_cast<double>(gpu));
    samples[k].delay.push_back(static_cast<double>(delay));
  }
  for (std::size_t k = 0; k < kLaunchClassCount; ++k) {
    result.classes[k].cpu_duration_ns = describe(std::move(samples[k].cpu));
    result.classes[k].gpu_duration_ns = describe(std::move(samples[k].gpu));
    result.classes[k].launch_delay_ns = describe(std::move(samples[k].delay));
  }
  for (auto& [key, points] : queues) {
    StreamQueue queue = integrate(std::move(points), window, LaunchResult::kQueueLimit);
    queue.device = key.first;
    queue.stream = key.second;
    result.queues.push_back(queue);
  }
  result.applicable = !result.queues.empty();
  if (!result.applicable) result.not_applicable_reason = "no linked launch calls";
  return result;
}

}  // namespace stepscope
