#include "stepscope/analysis/idle_time.h"

#include <algorithm>
#include <map>
#include <utility>

namespace stepscope {

namespace {

using StreamKey = std::pair<std::int32_t, std::int64_t>;

struct StreamWalk {
  StreamIdle idle;
  std::int64_t previous_end = INT64_MIN;
};

IdleCause classify_gap(const Trace& trace, EventIndex next, std::int64_t previous_end,
                       std::int64_t gap, std::int64_t threshold) {
  const EventIndex call = trace.events.launcher[next];
  if (call == kNoEvent) return IdleCause::kUnlinked;
  if (trace.events.start_ns[call] > previous_end) return IdleCause::kHostWait;
  return gap < threshold ? IdleCause::kKernelWait : IdleCause::kOther;
}

}  // namespace

std::string_view to_string(IdleCause cause) {
  switch (cause) {
    case IdleCause::kHostWait:
      return "host_wait";
    case IdleCause::kKernelWait:
      return "kernel_wait";
    case IdleCause::kOther:
      return "other";
    case IdleCause::kUnlinked:
      return "unlinked";
  }
  return "other";
}

std::int64_t StreamIdle::idle_between_ns() const {
  std::int64_t total = 0;
  for (const IdleCauseTotals& cause : causes) total += cause.ns;
  return total;
}

double StreamIdle::share(IdleCause cause) const {
  const std::int64_t between = idle_between_ns();
  return between > 0 ? static_cast<double>((*this)[cause].ns) / static_cast<double>(between) : 0.0;
}

IdleTimeResult compute_idle_time(const Trace& trace, const StepsResult& steps,
                                 const AnalysisOptions& /*options*/) {
  IdleTimeResult result;
  if (!steps.window) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const Interval window = *steps.window;
  const EventTable& e = trace.events;
  std::map<StreamKey, StreamWalk> walks;
  // Events are sorted by start, so each stream is walked in start order.
  for (const EventIndex i : e.device_activities) {
    const std::int64_t start = std::max(e.start_ns[i], window.start);
    const std::int64_t end = std::min(e.end_ns(i), window.end);
    if (start > end || (start == end && e.dur_ns[i] > 0)) continue;
    StreamWalk& walk = walks[{trace.activity_device(i), trace.activity_stream(i)}];
    StreamIdle& idle = walk.idle;
    if (idle.activities == 0) {
      idle.device = trace.activity_device(i);
      idle.stream = trace.activity_stream(i);
      idle.leading_idle_ns = start - window.start;
    } else if (start > walk.previous_end) {
      const std::int64_t gap = start - walk.previous_end;
      const IdleCause cause =
          classify_gap(trace, i, walk.previous_end, gap, result.kernel_wait_threshold_ns);
      idle.causes[static_cast<std::size_t>(cause)].ns += gap;
      ++idle.causes[static_cast<std::size_t>(cause)].gaps;
    }
    ++idle.activities;
    walk.previous_end = std::max(walk.previous_end, end);
  }
  for (auto& [key, walk] : walks) {
    walk.idle.trailing_idle_ns = window.end - walk.previous_end;
    result.streams.push_back(walk.idle);
  }
  result.applicable = !result.streams.empty();
  if (!result.applicable) result.not_applicable_reason = "no GPU activity";
  return result;
}

}  // namespace stepscope
