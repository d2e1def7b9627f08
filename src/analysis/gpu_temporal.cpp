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
  for (const EventIndex i : e.device_activities) {
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

// Class unions of one device (or of the whole rank) within W.
struct ClassSets {
  IntervalSet computation;
  IntervalSet communication;
  IntervalSet memory;
  IntervalSet exposed_communication;  // communication − computation
};

ClassSets class_sets(const ClassIntervals& split) {
  ClassSets sets;
  sets.computation = IntervalSet::from_sorted(split.computation);
  sets.communication = IntervalSet::from_sorted(split.communication);
  sets.memory = IntervalSet::from_sorted(split.memory);
  sets.exposed_communication = sets.communication.subtract(sets.computation);
  return sets;
}

std::optional<double> overlap_share(std::int64_t communication_ns, std::int64_t exposed_ns) {
  if (communication_ns <= 0) return std::nullopt;
  return static_cast<double>(communication_ns - exposed_ns) / static_cast<double>(communication_ns);
}

// Each kept step lies in W, so measuring the W-clipped sets within the step is exact; the
// binary search of measure_within keeps many steps over millions of intervals cheap.
std::vector<StepOverlap> overlap_per_step(const ClassSets& sets, const StepsResult& steps) {
  std::vector<StepOverlap> out;
  for (const Step* step : steps.kept()) {
    const Interval span{step->start_ns, step->end_ns};
    StepOverlap row;
    row.step_number = step->number;
    row.communication_ns = sets.communication.measure_within(span);
    row.exposed_communication_ns = sets.exposed_communication.measure_within(span);
    row.overlap_share = overlap_share(row.communication_ns, row.exposed_communication_ns);
    out.push_back(row);
  }
  return out;
}

DeviceTemporal summarize(std::int32_t id, const ClassIntervals& split, Interval window,
                         const StepsResult& steps) {
  const ClassSets sets = class_sets(split);
  const IntervalSet busy = sets.computation.unite(sets.communication).unite(sets.memory);
  DeviceTemporal t;
  t.device = id;
  t.window_ns = window.length();
  t.busy_ns = busy.measure();
  t.idle_ns = t.window_ns - t.busy_ns;
  t.compute_ns = sets.computation.measure();
  t.non_compute_ns = t.busy_ns - t.compute_ns;
  t.communication_ns = sets.communication.measure();
  t.memory_ns = sets.memory.measure();
  t.communication_only_ns = sets.exposed_communication.measure();
  t.memory_only_ns = sets.memory.subtract(sets.computation).subtract(sets.communication).measure();
  t.overlap_ns = t.communication_ns - t.communication_only_ns;
  t.overlap_share = overlap_share(t.communication_ns, t.communication_only_ns);
  t.activities = split.activities;
  t.timeline_span_ns = split.activities > 0 ? split.last_end - split.first_start : 0;
  t.timeline_idle_ns = t.timeline_span_ns - t.busy_ns;
  t.outside_window_activities = split.outside_activities;
  t.outside_window_ns = split.outside_ns;
  t.steps = overlap_per_step(sets, steps);
  return t;
}

// The rank's activity of every device in one list, still sorted by start.
ClassIntervals merge_devices(const std::map<std::int32_t, ClassIntervals>& devices) {
  ClassIntervals all;
  auto append = [](std::vector<Interval>& to, const std::vector<Interval>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  for (const auto& [id, split] : devices) {
    append(all.computation, split.computation);
    append(all.communication, split.communication);
  }
  if (devices.size() > 1) {
    std::sort(all.computation.begin(), all.computation.end(), by_start);
    std::sort(all.communication.begin(), all.communication.end(), by_start);
  }
  return all;
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
  const std::map<std::int32_t, ClassIntervals> devices = split_by_device(trace, window);
  for (const auto& [device, split] : devices) {
    result.devices.push_back(summarize(device, split, window, steps));
  }
  if (result.devices.empty()) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  result.applicable = true;
  result.steps = overlap_per_step(class_sets(merge_devices(devices)), steps);
  return result;
}

}  // namespace stepscope
