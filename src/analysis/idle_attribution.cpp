// One cause per idle moment (docs/metrics/16-idle-attribution.md).
#include "stepscope/analysis/idle_attribution.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "analysis/name_test.h"

namespace stepscope {

namespace {

// What the causes are built from, gathered in one pass over the events (four passes, one per
// input, cost more than the rest of the attribution). Everything is in event order, which is
// start order.
struct IdleInputs {
  std::vector<Interval> busy;         // device activity
  std::vector<Interval> loading;      // DataLoader / DataPipe fetches
  std::vector<Interval> launch_gaps;  // see waiting_for_launch
  std::vector<EventIndex> blocking;   // blocking launch calls (syncs, blocking copies)
};

IdleInputs gather_inputs(const Trace& trace) {
  const EventTable& e = trace.events;
  IdleInputs in;
  // Each name tested once: every launch is a call, and ops are most events.
  NameTest<is_blocking_call> blocking(trace);
  NameTest<is_data_loader_span> loader_span(trace);
  std::int64_t busy_until = std::numeric_limits<std::int64_t>::min();
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    if (is_device_activity(c)) {
      in.busy.push_back({e.start_ns[i], e.end_ns(i)});
      // A gap whose next activity was launched after the gap began: the GPU waited for the host.
      const EventIndex call = e.launcher[i];
      const bool first = busy_until == std::numeric_limits<std::int64_t>::min();
      if (!first && e.start_ns[i] > busy_until && call != kNoEvent &&
          e.start_ns[call] > busy_until) {
        in.launch_gaps.push_back({busy_until, e.start_ns[i]});
      }
      busy_until = std::max(busy_until, e.end_ns(i));
    } else if (c == EventClass::kOp || c == EventClass::kAnnotation) {
      if (loader_span(i)) in.loading.push_back({e.start_ns[i], e.end_ns(i)});
    } else if (is_launch_call(c) && blocking(i)) {
      in.blocking.push_back(i);
    }
  }
  return in;
}

// Where the next busy interval starts after t (t itself when busy then; `limit` when none).
std::int64_t next_busy(const IntervalSet& busy, std::int64_t t, std::int64_t limit) {
  const std::vector<Interval>& intervals = busy.intervals();
  const auto next =
      std::upper_bound(intervals.begin(), intervals.end(), t,
                       [](std::int64_t time, const Interval& i) { return time < i.end; });
  if (next == intervals.end()) return limit;
  return std::min(std::max(next->start, t), limit);
}

IntervalSet kept_steps(const StepsResult& steps) {
  std::vector<Interval> spans;
  for (const Step* step : steps.kept()) spans.push_back({step->start_ns, step->end_ns});
  return IntervalSet::from_unsorted(std::move(spans));
}

// Where the next span of `set` starts at or after t (`limit` when none).
std::int64_t next_start(const IntervalSet& set, std::int64_t t, std::int64_t limit) {
  const std::vector<Interval>& intervals = set.intervals();
  const auto next =
      std::lower_bound(intervals.begin(), intervals.end(), t,
                       [](const Interval& i, std::int64_t time) { return i.start < time; });
  return next == intervals.end() ? limit : std::min(next->start, limit);
}

// From each blocking call's return until the GPU has work again, for at most as long as the call
// blocked: without the sync, the host would have spent that time queueing the next work, so the
// sync can hide no more idle than that (13 s of host work after a short sync are not the sync's).
// The claim also ends when the host starts waiting for the DataLoader: that idle is the loader's.
IntervalSet after_syncs(const Trace& trace, const std::vector<EventIndex>& blocking,
                        const IntervalSet& busy, const IntervalSet& loading, std::int64_t limit) {
  const EventTable& e = trace.events;
  std::vector<Interval> spans;
  for (const EventIndex i : blocking) {
    const std::int64_t end = e.end_ns(i);
    const std::int64_t until = std::min(next_busy(busy, end, limit), end + e.dur_ns[i]);
    spans.push_back({end, std::min(until, next_start(loading, end, until))});
  }
  return IntervalSet::from_unsorted(std::move(spans));
}

}  // namespace

std::string_view to_string(IdleOwner cause) {
  switch (cause) {
    case IdleOwner::kDataLoading:
      return "data_loading";
    case IdleOwner::kHostDeviceSync:
      return "host_device_sync";
    case IdleOwner::kLaunch:
      return "launch";
    case IdleOwner::kOtherHost:
      return "other_host";
  }
  return "other_host";
}

bool is_blocking_call(std::string_view name) {
  static constexpr std::array<std::string_view, 9> kExact = {
      "cudaMemcpy",   "cudaMemset",          "hipMemcpy",
      "hipMemset",    "hipMemcpyWithStream", "cuMemcpyDtoH",
      "cuMemcpyHtoD", "cuCtxSynchronize",    "cuStreamSynchronize"};
  if (std::find(kExact.begin(), kExact.end(), name) != kExact.end()) return true;
  return name.find("Synchronize") != std::string_view::npos;
}

std::int64_t IdleAttributionResult::per_step_ns(IdleOwner cause) const {
  return steps > 0 ? of(cause).measure() / steps : 0;
}

IdleAttributionResult attribute_idle(const Trace& trace, const StepsResult& steps) {
  IdleAttributionResult result;
  IdleInputs inputs = gather_inputs(trace);
  const IntervalSet busy = IntervalSet::from_sorted(inputs.busy);
  if (busy.empty()) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const IntervalSet window = kept_steps(steps);
  if (window.empty()) {
    result.not_applicable_reason = "no kept steps";
    return result;
  }
  result.applicable = true;
  result.steps = static_cast<std::int64_t>(steps.kept().size());
  result.step_ns = window.measure();
  IntervalSet idle = window.subtract(busy);
  result.idle_ns = idle.measure();
  // Each cause takes its share of what the causes before it left.
  const std::int64_t limit = window.intervals().back().end;
  IntervalSet loading = IntervalSet::from_sorted(inputs.loading);
  IntervalSet syncs = after_syncs(trace, inputs.blocking, busy, loading, limit);
  const std::array<IntervalSet, kIdleOwnerCount - 1> claims = {
      std::move(loading), std::move(syncs), IntervalSet::from_sorted(inputs.launch_gaps)};
  for (std::size_t c = 0; c < claims.size(); ++c) {
    result.owned[c] = idle.intersect(claims[c]);
    idle = idle.subtract(result.owned[c]);
  }
  result.owned[static_cast<std::size_t>(IdleOwner::kOtherHost)] = std::move(idle);
  return result;
}

}  // namespace stepscope
