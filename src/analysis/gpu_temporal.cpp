#include "stepscope/analysis/gpu_temporal.h"

#include <algorithm>
#include <map>

#include "stepscope/analysis/kernel_class.h"
#include "stepscope/intervals.h"

namespace stepscope {

namespace {

// The activity of one device split by native class, as sorted interval lists.
struct ClassIntervals {
  std::vector<Interval> computation;
  std::vector<Interval> communication;
  std::vector<Interval> memory;
  std::int64_t activities = 0;
  std::int64_t outside_activities = 0;
  std::int64_t outside_ns = 0;
  std::int64_t first_start = INT64_MAX;
  std::int64_t last_end = INT64_MIN;
};

std::map<std::int32_t, ClassIntervals> split_by_device(const Trace& trace, Interval window) {
  std::map<std::int32_t, ClassIntervals> devices;
  ActivityClassifier classify(trace);
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const ActivityClass c = classify(i);
    if (c == ActivityClass::kNotActivity) continue;
    ClassIntervals& device = devices[trace.activity_device(i)];
    const Interval whole{e.start_ns[i], e.end_ns(i)};
    const Interval inside{std::max(whole.start, window.start), std::min(whole.end, window.end)};
    if (inside.start >= inside.end) {
      ++device.outside_activities;
      device.outside_ns += whole.length();
      continue;
    }
    if (inside.length() < whole.length()) {
      ++device.outside_activities;
      device.outside_ns += whole.length() - inside.length();
    }
    ++device.activities;
    device.first_start = std::min(device.first_start, inside.start);
    device.last_end = std::max(device.last_end, inside.end);
    switch (c) {
      case ActivityClass::kComputation:
        device.computation.push_back(inside);
        break;
      case ActivityClass::kCommunication:
        device.communication.push_back(inside);
        break;
      default:
        device.memory.push_back(inside);
        break;
    }
  }
  return devices;
}

DeviceTemporal summarize(std::int32_t id, const ClassIntervals& split, Interval window) {
  const IntervalSet comp = IntervalSet::from_sorted(split.computation);
  const IntervalSet comm = IntervalSet::from_sorted(split.communication);
  const IntervalSet mem = IntervalSet::from_sorted(split.memory);
  const IntervalSet busy = comp.unite(comm).unite(mem);
  DeviceTemporal t;
  t.device = id;
  t.window_ns = window.length();
  t.busy_ns = busy.measure();
  t.idle_ns = t.window_ns - t.busy_ns;
  t.compute_ns = comp.measure();
  t.non_compute_ns = t.busy_ns - t.compute_ns;
  t.communication_ns = comm.measure();
  t.memory_ns = mem.measure();
  t.communication_only_ns = comm.subtract(comp).measure();
  t.memory_only_ns = mem.subtract(comp).subtract(comm).measure();
  t.overlap_ns = comp.intersect(comm).measure();
  if (t.communication_ns > 0) {
    t.overlap_share = static_cast<double>(t.overlap_ns) / static_cast<double>(t.communication_ns);
  }
  t.activities = split.activities;
  t.timeline_span_ns = split.activities > 0 ? split.last_end - split.first_start : 0;
  t.outside_window_activities = split.outside_activities;
  t.outside_window_ns = split.outside_ns;
  return t;
}

std::vector<StepOverlap> overlap_per_step(const Trace& trace, const StepsResult& steps) {
  ActivityClassifier classify(trace);
  std::vector<Interval> comp;
  std::vector<Interval> comm;
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const ActivityClass c = classify(i);
    if (c == ActivityClass::kComputation) comp.push_back({e.start_ns[i], e.end_ns(i)});
    if (c == ActivityClass::kCommunication) comm.push_back({e.start_ns[i], e.end_ns(i)});
  }
  const IntervalSet computation = IntervalSet::from_sorted(comp);
  const IntervalSet communication = IntervalSet::from_sorted(comm);
  std::vector<StepOverlap> out;
  for (const Step* step : steps.kept()) {
    const Interval span{step->start_ns, step->end_ns};
    StepOverlap row;
    row.step_number = step->number;
    const IntervalSet step_comm = communication.clip(span);
    row.communication_ns = step_comm.measure();
    row.exposed_communication_ns = step_comm.subtract(computation).measure();
    if (row.communication_ns > 0) {
      row.overlap_share = static_cast<double>(row.communication_ns - row.exposed_communication_ns) /
                          static_cast<double>(row.communication_ns);
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace

GpuTemporalResult compute_gpu_temporal(const Trace& trace, const StepsResult& steps,
                                       const AnalysisOptions& /*options*/) {
  GpuTemporalResult result;
  if (!steps.window || steps.window_source == StepsResult::WindowSource::kNone) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const Interval window = *steps.window;
  for (const auto& [device, split] : split_by_device(trace, window)) {
    result.devices.push_back(summarize(device, split, window));
  }
  if (result.devices.empty()) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  result.applicable = true;
  result.steps = overlap_per_step(trace, steps);
  return result;
}

}  // namespace stepscope
