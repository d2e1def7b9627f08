#include "stepscope/analysis/queue_length.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "analysis/launch_class_cache.h"

namespace stepscope {

namespace {

struct QueuePoint {
  std::int64_t time;
  int delta;  // +1 launch call starts, -1 its activity starts
};

bool comes_first(const QueuePoint& a, const QueuePoint& b) {
  return a.time != b.time ? a.time < b.time : a.delta < b.delta;
}

// A stream's points kept apart by kind: activity starts arrive in start order and launch calls
// nearly so, where the two interleaved are far from sorted. Each is sorted only if it must be,
// and the two are merged.
struct SplitPoints {
  std::vector<QueuePoint> launches;  // +1
  std::vector<QueuePoint> starts;    // -1
};

using StreamKey = std::pair<std::int32_t, std::int64_t>;
using StreamPoints = std::map<StreamKey, SplitPoints>;

// A graph launch submits one piece of work per stream however many nodes the graph has:
// HTA's +1 per activity would put every node in the queue (trace_diff/test then "queues"
// 1,338 launches, more than CUDA's 1,024 slots). One entry per (call, stream), leaving the
// queue when the graph's first activity on that stream starts.
struct GraphEntry {
  EventIndex call;
  std::int32_t device;
  std::int64_t stream;
  bool operator<(const GraphEntry& o) const {
    return std::tie(call, device, stream) < std::tie(o.call, o.device, o.stream);
  }
};

StreamPoints collect_points(const Trace& trace) {
  const EventTable& e = trace.events;
  LaunchClassCache classes(trace);
  StreamPoints points;
  std::map<GraphEntry, std::int64_t> graph_first_start;
  for (const EventIndex i : e.device_activities) {
    if (e.launcher[i] == kNoEvent) continue;
    const std::optional<LaunchClass> launch_class = classes.of(e.launcher[i]);
    if (!launch_class) continue;
    const std::int32_t device = trace.activity_device(i);
    const std::int64_t stream = trace.activity_stream(i);
    if (*launch_class == LaunchClass::kGraphLaunch) {
      // Activities come sorted by start: the first one seen on a stream is the earliest.
      graph_first_start.try_emplace({e.launcher[i], device, stream}, e.start_ns[i]);
      continue;
    }
    // One +1 per activity, on the activity's stream, as HTA does
    // (docs/metrics/08-hta-queue-length-summary.md §8 step 2).
    SplitPoints& queue = points[{device, stream}];
    queue.launches.push_back({e.start_ns[e.launcher[i]], +1});
    queue.starts.push_back({e.start_ns[i], -1});
  }
  for (const auto& [entry, first_start] : graph_first_start) {
    SplitPoints& queue = points[{entry.device, entry.stream}];
    queue.launches.push_back({e.start_ns[entry.call], +1});
    queue.starts.push_back({first_start, -1});
  }
  return points;
}

// The depth is a step function of time: the running sum of the points, sorted with decrements
// before increments at equal times (so a launch and a start at the same ns make no spike).
// Points equal under comes_first are identical, so the merged order is the one a sort gives.
std::vector<QueuePoint> in_order(SplitPoints split) {
  for (std::vector<QueuePoint>* kind : {&split.launches, &split.starts}) {
    if (!std::is_sorted(kind->begin(), kind->end(), comes_first)) {
      std::sort(kind->begin(), kind->end(), comes_first);
    }
  }
  std::vector<QueuePoint> points(split.launches.size() + split.starts.size());
  std::merge(split.starts.begin(), split.starts.end(), split.launches.begin(), split.launches.end(),
             points.begin(), comes_first);
  return points;
}

StreamQueueLength integrate(const std::vector<QueuePoint>& points, Interval window) {
  StreamQueueLength queue;
  std::size_t k = 0;
  std::int64_t depth = 0;
  for (; k < points.size() && points[k].time < window.start; ++k) depth += points[k].delta;
  queue.depth_at_window_start = depth;
  queue.max_depth = depth;
  queue.min_depth = depth;
  double area = 0;
  std::int64_t at = window.start;
  for (; k < points.size() && points[k].time < window.end; ++k) {
    const std::int64_t span = points[k].time - at;
    area += static_cast<double>(depth) * static_cast<double>(span);
    queue.time_at_limit_ns += depth >= kLaunchQueueLimit ? span : 0;
    at = points[k].time;
    depth += points[k].delta;
    ++queue.samples;
    queue.launches += points[k].delta > 0 ? 1 : 0;
    queue.max_depth = std::max(queue.max_depth, depth);
    queue.min_depth = std::min(queue.min_depth, depth);
  }
  const std::int64_t tail = window.end - at;
  area += static_cast<double>(depth) * static_cast<double>(tail);
  queue.time_at_limit_ns += depth >= kLaunchQueueLimit ? tail : 0;
  const auto length = static_cast<double>(window.length());
  if (length > 0) {
    queue.time_weighted_mean_depth = area / length;
    queue.time_at_limit_share = static_cast<double>(queue.time_at_limit_ns) / length;
  }
  return queue;
}

}  // namespace

QueueLengthResult compute_queue_length(const Trace& trace, const StepsResult& steps,
                                       const AnalysisOptions& /*options*/) {
  QueueLengthResult result;
  if (!steps.window) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  result.window = *steps.window;
  for (auto& [key, points] : collect_points(trace)) {
    StreamQueueLength queue = integrate(in_order(std::move(points)), result.window);
    queue.device = key.first;
    queue.stream = key.second;
    // A stream with nothing queued during W says nothing about W.
    if (queue.samples == 0 && queue.depth_at_window_start == 0) continue;
    result.streams.push_back(queue);
  }
  result.applicable = !result.streams.empty();
  if (!result.applicable) {
    result.not_applicable_reason = "no launch call linked to device activity in the window";
  }
  return result;
}

}  // namespace stepscope
