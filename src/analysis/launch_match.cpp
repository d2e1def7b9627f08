#include "analysis/launch_match.h"

#include <algorithm>
#include <array>
#include <span>

#include "concurrency/parallel_for.h"

namespace stepscope {

bool counts_as_device_activity(EventClass c, Mode mode) {
  return is_device_activity(c) && (mode != Mode::kCompatTb || c != EventClass::kAcceleratorKernel);
}

namespace {

// compat-tb, as the TensorBoard plugin, counts runtime calls only.
bool counts_as_launch(EventClass c, Mode mode) {
  return mode == Mode::kCompatTb ? c == EventClass::kRuntime : is_launch_call(c);
}

}  // namespace

EventIndex counted_launch(const EventTable& e, EventIndex i, Mode mode) {
  if (!counts_as_device_activity(e.event_class[i], mode)) return kNoEvent;
  const EventIndex call = e.launcher[i];
  if (call == kNoEvent || !counts_as_launch(e.event_class[call], mode)) return kNoEvent;
  return call;
}

StepOfCall::StepOfCall(const std::vector<Step>& steps) : steps_(steps) {
  latest_end_.reserve(steps.size());
  std::int64_t latest = std::numeric_limits<std::int64_t>::min();
  for (const Step& step : steps) {
    latest = std::max(latest, step.host_end_ns);
    latest_end_.push_back(latest);
  }
}

std::size_t StepOfCall::find(std::int64_t call_start, std::int64_t call_end) const {
  const auto after = std::upper_bound(latest_end_.begin(), latest_end_.end(), call_start);
  if (after == latest_end_.end()) return kNone;
  const auto step = static_cast<std::size_t>(after - latest_end_.begin());
  const Step& holder = steps_[step];
  if (call_start < holder.host_start_ns || call_end > holder.host_end_ns) return kNone;
  return step;
}

namespace {

void match_part(const EventTable& e, const StepOfCall& step_of_call, Mode mode,
                std::span<const EventIndex> activities, std::vector<StepDevice>& devices) {
  for (const EventIndex i : activities) {
    const EventIndex call = counted_launch(e, i, mode);
    if (call == kNoEvent) continue;
    const std::size_t step = step_of_call.find(e.start_ns[call], e.end_ns(call));
    if (step == StepOfCall::kNone) continue;
    StepDevice& device = devices[step];
    device.first_start = std::min(device.first_start, e.start_ns[i]);
    device.last_end = std::max(device.last_end, e.end_ns(i));
    ++device.activities;
  }
}

}  // namespace

std::vector<StepDevice> match_device_work(const Trace& trace, const std::vector<Step>& steps,
                                          Mode mode, unsigned threads) {
  const StepOfCall step_of_call(steps);
  const std::span<const EventIndex> activities = trace.events.device_activities;
  const std::size_t parts = threads >= 2 ? 2 : 1;
  const std::size_t half = activities.size() / 2;
  // Each part widens its own copy: a step may hold activities of both.
  std::array<std::vector<StepDevice>, 2> devices;
  parallel_for(parts, threads, [&](std::size_t part) {
    devices[part].resize(steps.size());
    const std::span<const EventIndex> mine = parts == 1  ? activities
                                             : part == 0 ? activities.first(half)
                                                         : activities.subspan(half);
    match_part(trace.events, step_of_call, mode, mine, devices[part]);
  });
  for (std::size_t part = 1; part < parts; ++part) {
    for (std::size_t s = 0; s < steps.size(); ++s) {
      StepDevice& into = devices[0][s];
      into.first_start = std::min(into.first_start, devices[part][s].first_start);
      into.last_end = std::max(into.last_end, devices[part][s].last_end);
      into.activities += devices[part][s].activities;
    }
  }
  return std::move(devices[0]);
}

}  // namespace stepscope
