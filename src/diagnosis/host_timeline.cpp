#include "diagnosis/host_timeline.h"

#include <vector>

namespace stepscope {

namespace {

bool is_host_span(EventClass c) { return c == EventClass::kOp || c == EventClass::kAnnotation; }

template <typename Select>
IntervalSet spans_where(const Trace& trace, Select&& select) {
  const EventTable& e = trace.events;
  std::vector<Interval> spans;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (select(i)) spans.push_back({e.start_ns[i], e.end_ns(i)});
  }
  return IntervalSet::from_unsorted(std::move(spans));
}

}  // namespace

bool is_cpu_only(const Trace& trace) {
  // A GPU run profiled without CUDA activities lists its devices but records no device work:
  // its ops are launches, not CPU work, so it is not a CPU run.
  if (!trace.devices.empty()) return false;
  for (const EventClass c : trace.events.event_class) {
    if (is_device_activity(c)) return false;
  }
  return true;
}

bool is_host_collective_name(std::string_view name) {
  return name.starts_with("gloo:") || name.starts_with("c10d::") || name == "record_param_comms";
}

bool is_host_collective(const Trace& trace, EventIndex i) {
  return is_host_span(trace.events.event_class[i]) && is_host_collective_name(trace.name_of(i));
}

bool is_top_level_work_op(const Trace& trace, EventIndex i) {
  const EventTable& e = trace.events;
  if (e.event_class[i] != EventClass::kOp) return false;
  const std::string_view name = trace.name_of(i);
  if (is_host_collective_name(name) || is_data_loading_name(name)) return false;
  for (EventIndex at = e.parent[i]; at != kNoEvent; at = e.parent[at]) {
    if (e.event_class[at] == EventClass::kOp) return false;
  }
  return true;
}

IntervalSet collective_spans(const Trace& trace) {
  return spans_where(trace, [&trace](EventIndex i) { return is_host_collective(trace, i); });
}

IntervalSet data_loading_spans(const Trace& trace) {
  return spans_where(trace, [&trace](EventIndex i) {
    return is_host_span(trace.events.event_class[i]) && is_data_loading_name(trace.name_of(i));
  });
}

bool on_step_thread(const Trace& trace, const Step& step, EventIndex i) {
  return !step.thread || trace.events.thread[i] == *step.thread;
}

}  // namespace stepscope
