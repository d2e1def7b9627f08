#include "stepscope/analysis/step_model.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "analysis/name_test.h"
#include "stepscope/analysis/data_loading.h"
#include "stepscope/analysis/idle_attribution.h"
#include "stepscope/analysis/launch_class.h"

namespace stepscope {

namespace {

bool launches_or_blocks(std::string_view name) {
  return classify_launch(name).has_value() || is_blocking_call(name);
}
bool is_memory_call(std::string_view name) {
  const std::optional<LaunchClass> launch = classify_launch(name);
  return launch == LaunchClass::kAsyncMemory || launch == LaunchClass::kSyncMemory;
}
bool is_stream_wait(std::string_view name) {
  return name.find("StreamWaitEvent") != std::string_view::npos;
}

struct Classifiers {
  explicit Classifiers(const Trace& trace)
      : loader(trace), launch(trace), blocking(trace), memory(trace), stream_wait(trace) {}
  NameTest<is_data_loader_span> loader;
  NameTest<launches_or_blocks> launch;
  NameTest<is_blocking_call> blocking;
  NameTest<is_memory_call> memory;
  NameTest<is_stream_wait> stream_wait;
};

template <typename Visit>
void for_each_event_in(const EventTable& e, std::int64_t from, std::int64_t to, Visit&& visit) {
  const auto size = static_cast<EventIndex>(e.size());
  for (auto i = static_cast<EventIndex>(
           std::lower_bound(e.start_ns.begin(), e.start_ns.end(), from) - e.start_ns.begin());
       i < size && e.start_ns[i] < to; ++i) {
    visit(i);
  }
}

bool is_step_of(const StepModel& model, EventIndex event) {
  return std::any_of(model.steps.begin(), model.steps.end(),
                     [&](const Step* step) { return step->event == event; });
}

// The host calls of a run of steps on every thread, in start order, and the threads that launch.
// Whatever runs inside a data-loader fetch belongs to the fetch.
void collect_calls(const Trace& trace, Classifiers& is, StepModel& model,
                   std::vector<EventIndex>& stream_waits, std::vector<std::uint8_t>& launching) {
  const EventTable& e = trace.events;
  std::vector<std::int64_t> inside_fetch_until(trace.threads.size(),
                                               std::numeric_limits<std::int64_t>::min());
  for_each_event_in(e, model.start_ns, model.end_ns, [&](EventIndex i) {
    const EventClass c = e.event_class[i];
    const bool host_span =
        c == EventClass::kOp || c == EventClass::kAnnotation || c == EventClass::kPython;
    if (!host_span && !is_launch_call(c)) return;
    const std::uint32_t thread = e.thread[i];
    if (e.start_ns[i] < inside_fetch_until[thread]) return;
    if (c != EventClass::kPython && (e.parent[i] == kNoEvent || is_step_of(model, e.parent[i])) &&
        !is_step_of(model, i)) {
      model.top_ops.push_back(i);
    }
    HostCall call;
    call.event = i;
    call.start_ns = e.start_ns[i];
    call.dur_ns = e.dur_ns[i];
    if (host_span && is.loader(i)) {
      call.kind = HostCallKind::kLoaderFetch;
      inside_fetch_until[thread] = e.end_ns(i);
    } else if (!host_span && is.launch(i)) {
      call.kind = is.blocking(i) ? HostCallKind::kBlocking : HostCallKind::kLaunch;
      call.copies = is.memory(i);
      launching[thread] = 1;
    } else {
      if (!host_span && is.stream_wait(i)) stream_waits.push_back(i);
      return;
    }
    call.after_wait_ns = call.dur_ns;
    model.calls.push_back(call);
  });
}

// Keeps the calls and ops of the modelled threads: the step's own, and every thread that
// launches device work inside a kept step (the autograd engine runs backward on a thread of its
// own, which the main thread waits for). A thread that neither runs the step nor launches (a
// pin-memory thread) runs beside the step, not in it.
void keep_modelled_threads(const Trace& trace, const std::vector<std::uint8_t>& modelled,
                           StepModel& model) {
  const EventTable& e = trace.events;
  std::erase_if(model.calls,
                [&](const HostCall& call) { return modelled[e.thread[call.event]] == 0; });
  std::erase_if(model.top_ops, [&](EventIndex op) { return modelled[e.thread[op]] == 0; });
}

struct CallPlace {
  EventIndex event = kNoEvent;
  std::uint32_t step = 0;
  std::uint32_t call = 0;
};

// Calls by event index, found by binary search.
class CallPlaces {
 public:
  explicit CallPlaces(const std::vector<StepModel>& runs) {
    for (std::uint32_t r = 0; r < runs.size(); ++r) {
      for (std::uint32_t c = 0; c < runs[r].calls.size(); ++c) {
        places_.push_back({runs[r].calls[c].event, r, c});
      }
    }
    // Already in order unless runs overlap (steps on several threads).
    std::stable_sort(places_.begin(), places_.end(),
                     [](const CallPlace& a, const CallPlace& b) { return a.event < b.event; });
  }
  [[nodiscard]] const CallPlace* find(EventIndex event) const {
    const auto at = std::lower_bound(
        places_.begin(), places_.end(), event,
        [](const CallPlace& place, EventIndex wanted) { return place.event < wanted; });
    return at != places_.end() && at->event == event ? &*at : nullptr;
  }

 private:
  std::vector<CallPlace> places_;
};

struct QueueIndex {
  std::vector<QueueKey>& keys;
  std::uint32_t of(std::int32_t device, std::int64_t stream) {
    const QueueKey key{device, stream};
    const auto found = std::find(keys.begin(), keys.end(), key);
    if (found != keys.end()) return static_cast<std::uint32_t>(found - keys.begin());
    keys.push_back(key);
    return static_cast<std::uint32_t>(keys.size() - 1);
  }
};

bool in_a_step(const std::vector<StepModel>& runs, std::int64_t t, std::size_t& cursor) {
  while (cursor < runs.size() && runs[cursor].steps.back()->end_ns <= t) ++cursor;
  return cursor < runs.size() && runs[cursor].steps.front()->start_ns <= t;
}

// Launch latency: from the call's start to its activity's start. An activity whose queue was
// already empty when its call started shows it directly; one that may have waited behind earlier
// work does not, and is given the median of those that showed it, or less.
void assign_activities(const Trace& trace, const CallPlaces& places, StepModels& models) {
  const EventTable& e = trace.events;
  QueueIndex queues{models.queues};
  std::vector<std::int64_t> queue_end;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> queued;  // (step, activity): no latency yet
  std::vector<double> seen_latencies;
  std::size_t step_cursor = 0;  // activities come in start order
  for (const EventIndex a : e.device_activities) {
    const EventIndex launcher = e.launcher[a];
    const CallPlace* place = launcher == kNoEvent ? nullptr : places.find(launcher);
    const std::uint32_t queue = queues.of(e.device[a], e.stream[a]);
    if (queue >= queue_end.size())
      queue_end.resize(queue + 1, std::numeric_limits<std::int64_t>::min());
    const std::int64_t previous_end = queue_end[queue];
    queue_end[queue] = std::max(previous_end, e.end_ns(a));
    if (place == nullptr) {
      models.unlinked_activities += in_a_step(models.runs, e.start_ns[a], step_cursor) ? 1 : 0;
      continue;
    }
    StepModel& model = models.runs[place->step];
    ModelledActivity activity;
    activity.event = a;
    activity.queue = queue;
    activity.call = place->call;
    activity.dur_ns = e.dur_ns[a];
    const std::int64_t delay = std::max<std::int64_t>(0, e.start_ns[a] - e.start_ns[launcher]);
    if (previous_end <= e.start_ns[launcher]) {
      activity.latency_ns = delay;
      seen_latencies.push_back(static_cast<double>(delay));
    } else {
      activity.latency_ns = delay;
      queued.emplace_back(place->step, static_cast<std::uint32_t>(model.activities.size()));
    }
    model.activities.push_back(activity);
  }
  // A trace whose queues never ran dry shows no latency (every delay includes the queue): a
  // launch's usual few microseconds are assumed, and said.
  std::int64_t typical = kAssumedLaunchLatencyNs;
  if (!seen_latencies.empty()) {
    const auto middle =
        seen_latencies.begin() + static_cast<std::ptrdiff_t>(seen_latencies.size() / 2);
    std::nth_element(seen_latencies.begin(), middle, seen_latencies.end());
    typical = static_cast<std::int64_t>(*middle);
  } else if (!queued.empty()) {
    models.latency_assumed = true;
  }
  for (const auto& [step, index] : queued) {
    std::int64_t& latency = models.runs[step].activities[index].latency_ns;
    latency = std::min(latency, typical);
  }
}

// Activities grouped by call, in launch order; each call told where its activities are.
void index_activities(StepModel& model) {
  std::stable_sort(
      model.activities.begin(), model.activities.end(),
      [](const ModelledActivity& a, const ModelledActivity& b) { return a.call < b.call; });
  for (std::uint32_t i = 0; i < model.activities.size(); ++i) {
    HostCall& call = model.calls[model.activities[i].call];
    if (call.activity_count == 0) call.first_activity = i;
    ++call.activity_count;
  }
}

// What each blocking call waited for: the latest-finishing activity launched before it (or by
// it) that finished before it returned; the call's own cost is what came after. Work that was
// still running when the call returned (another stream's) was not waited for.
void find_waits(const Trace& trace, StepModel& model) {
  constexpr std::uint32_t kLookBack = 256;  // activities searched when the running latest is not it
  const EventTable& e = trace.events;
  std::int32_t latest = -1;
  std::uint32_t next = 0;     // activities before `next` are in the running latest
  std::uint32_t through = 0;  // activities launched so far (by this call too)
  auto end_of = [&](std::int32_t a) { return e.end_ns(model.activities[a].event); };
  for (HostCall& call : model.calls) {
    through = std::max(through, call.first_activity + call.activity_count);
    if (call.kind == HostCallKind::kLaunch && call.copies && call.activity_count > 0 &&
        e.end_ns(model.activities[through - 1].event) <= call.end_ns()) {
      call.kind = HostCallKind::kBlocking;
    }
    if (call.kind != HostCallKind::kBlocking) continue;
    for (; next < through; ++next) {
      if (latest < 0 || e.end_ns(model.activities[next].event) > end_of(latest)) {
        latest = static_cast<std::int32_t>(next);
      }
    }
    std::int32_t awaited = latest;
    if (awaited >= 0 && end_of(awaited) > call.end_ns()) {
      awaited = -1;
      const std::uint32_t from = through > kLookBack ? through - kLookBack : 0;
      for (std::uint32_t a = from; a < through; ++a) {
        const auto candidate = static_cast<std::int32_t>(a);
        if (end_of(candidate) > call.end_ns()) continue;
        if (awaited < 0 || end_of(candidate) > end_of(awaited)) awaited = candidate;
      }
    }
    call.awaited = awaited;
    if (awaited >= 0) {
      const std::int64_t resumed = std::max(call.start_ns, end_of(awaited));
      call.after_wait_ns = std::clamp<std::int64_t>(call.end_ns() - resumed, 0, call.dur_ns);
    }
  }
}

// Kept steps whose numbers follow each other, on one thread, form a run.
std::vector<std::vector<const Step*>> consecutive_runs(const std::vector<const Step*>& kept) {
  std::vector<std::vector<const Step*>> runs;
  for (const Step* step : kept) {
    const bool follows = !runs.empty() && runs.back().back()->number + 1 == step->number &&
                         runs.back().back()->thread == step->thread &&
                         runs.back().back()->host_end_ns <= step->host_start_ns;
    if (!follows) runs.emplace_back();
    runs.back().push_back(step);
  }
  return runs;
}

}  // namespace

std::int64_t StepModel::measured_ns() const {
  std::int64_t total = 0;
  for (const Step* step : steps) total += step->duration_ns();
  return total;
}

StepModels build_step_models(const Trace& trace, const StepsResult& steps) {
  StepModels models;
  const std::vector<const Step*> kept = steps.kept();
  if (kept.empty()) return models;
  Classifiers is(trace);
  std::vector<std::uint8_t> modelled(trace.threads.size(), 0);
  std::vector<EventIndex> stream_waits;
  for (std::vector<const Step*>& steps_in_run : consecutive_runs(kept)) {
    StepModel& model = models.runs.emplace_back();
    model.steps = std::move(steps_in_run);
    model.start_ns = model.steps.front()->host_start_ns;
    model.end_ns = model.steps.back()->host_end_ns;
    for (const Step* step : model.steps) {
      if (step->thread) modelled[*step->thread] = 1;
    }
    collect_calls(trace, is, model, stream_waits, modelled);
  }
  models.cross_stream_waits =
      std::count_if(stream_waits.begin(), stream_waits.end(),
                    [&](EventIndex i) { return modelled[trace.events.thread[i]] != 0; });
  for (std::uint32_t t = 0; t < modelled.size(); ++t) {
    if (modelled[t] != 0) models.host_threads.push_back(t);
  }
  for (StepModel& model : models.runs) keep_modelled_threads(trace, modelled, model);
  assign_activities(trace, CallPlaces(models.runs), models);
  for (StepModel& model : models.runs) {
    index_activities(model);
    find_waits(trace, model);
  }
  return models;
}

}  // namespace stepscope
