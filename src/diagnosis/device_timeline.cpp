#include "diagnosis/device_timeline.h"

#include <algorithm>
#include <vector>

namespace stepscope {

IntervalSet device_busy(const Trace& trace) {
  const EventTable& e = trace.events;
  std::vector<Interval> intervals;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (is_device_activity(e.event_class[i])) intervals.push_back({e.start_ns[i], e.end_ns(i)});
  }
  return IntervalSet::from_sorted(intervals);  // events are sorted by start at load
}

std::int64_t idle_after(const IntervalSet& busy, std::int64_t t, std::int64_t limit) {
  const std::vector<Interval>& intervals = busy.intervals();
  auto next = std::upper_bound(intervals.begin(), intervals.end(), t,
                               [](std::int64_t time, const Interval& i) { return time < i.end; });
  if (next != intervals.end() && next->start <= t) return 0;  // busy at t
  const std::int64_t until = next == intervals.end() ? limit : std::min(next->start, limit);
  return std::max<std::int64_t>(until - t, 0);
}

}  // namespace stepscope
