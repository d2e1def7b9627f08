#include "analysis/step_replay.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "analysis/name_test.h"
#include "analysis/tensor_core_change.h"
#include "stepscope/analysis/kernel_class.h"
#include "stepscope/intervals.h"

namespace stepscope {

void PathTally::add(PathClass path_class, StringId name, std::int64_t ns) {
  if (ns <= 0) return;
  by_class[static_cast<std::size_t>(path_class)] += ns;
  NameTime& time = by_name[key(name, path_class)];
  time.ns += ns;
  ++time.count;
}

std::string_view PathTally::text_of(const Trace& trace, StringId name) {
  if (name == kLaunchLatency) return "(launch latency)";
  if (name == kOutsideOps) return "(host work outside any op)";
  return trace.strings.view(name);
}

namespace {

// Where the change makes ops faster: their spans on the modelled threads (host time), and the
// device work they own.
class Speedups {
 public:
  Speedups(const Trace& trace, const StepModels& models, const WhatIfChange& change)
      : trace_(trace), kernels_(change.kernels) {
    // The name tests cost a byte per distinct name: built only for a change that asks them.
    if (!kernels_.empty()) {
      classify_.emplace(trace);
      fp32_matmul_.emplace(trace);
    }
    if (change.tensor_cores) tensor_cores_.emplace(trace);
    add_ops(models, change.ops);
  }

  // Host time in [from, to) the faster ops would save.
  [[nodiscard]] std::int64_t host_saving(std::int64_t from, std::int64_t to) const {
    double saved = 0;
    for (const auto& [spans, factor] : host_) {
      saved += static_cast<double>(spans.measure_within({from, to})) * (1.0 - 1.0 / factor);
    }
    return std::min(static_cast<std::int64_t>(saved), std::max<std::int64_t>(to - from, 0));
  }

  // The activity's duration under the change: its kernel group faster, on tensor cores, or the
  // op that owns it (or one around that op) faster.
  [[nodiscard]] std::int64_t device_duration(const ModelledActivity& activity) {
    std::int64_t dur = activity.dur_ns;
    if (tensor_cores_) dur = tensor_cores_->duration(activity.event, dur);
    for (const KernelSpeedup& kernel : kernels_) {
      if (in_group(activity.event, kernel.group)) {
        dur = static_cast<std::int64_t>(static_cast<double>(dur) / kernel.factor);
      }
    }
    return op_duration(activity, dur);
  }

 private:
  void add_ops(const StepModels& models, const std::vector<OpSpeedup>& ops) {
    if (ops.empty()) return;
    std::vector<std::uint8_t> modelled(trace_.threads.size(), 0);
    for (const std::uint32_t t : models.host_threads) modelled[t] = 1;
    const EventTable& e = trace_.events;
    for (const OpSpeedup& op : ops) {
      const StringId id = trace_.strings.find(op.op);
      std::vector<Interval> spans;
      for (EventIndex i = 0;
           i < static_cast<EventIndex>(e.size()) && id != StringPool::kNotInterned; ++i) {
        if (e.name[i] == id && modelled[e.thread[i]] != 0 &&
            !is_device_activity(e.event_class[i])) {
          spans.push_back({e.start_ns[i], e.end_ns(i)});
        }
      }
      host_.emplace_back(IntervalSet::from_sorted(spans), op.factor);
      names_.emplace_back(id, op.factor);
    }
  }

  bool in_group(EventIndex activity, KernelGroup group) {
    switch (group) {
      case KernelGroup::kFp32Matmul:
        return trace_.events.event_class[activity] == EventClass::kKernel &&
               (*fp32_matmul_)(activity);
      case KernelGroup::kCommunication:
        return (*classify_)(activity) == ActivityClass::kCommunication;
    }
    return false;
  }

  [[nodiscard]] std::int64_t op_duration(const ModelledActivity& activity, std::int64_t dur) const {
    if (names_.empty()) return dur;
    const EventTable& e = trace_.events;
    for (EventIndex op = e.owner_op[activity.event]; op != kNoEvent; op = e.parent[op]) {
      for (const auto& [id, factor] : names_) {
        if (e.name[op] == id) return static_cast<std::int64_t>(static_cast<double>(dur) / factor);
      }
    }
    return dur;
  }

  const Trace& trace_;
  std::vector<KernelSpeedup> kernels_;
  std::optional<ActivityClassifier> classify_;
  std::optional<NameTest<is_fp32_matmul_kernel>> fp32_matmul_;
  std::optional<TensorCoreChange> tensor_cores_;
  std::vector<std::pair<IntervalSet, double>> host_;
  std::vector<std::pair<StringId, double>> names_;
};

// When each call and activity of one step runs in the replay, and what bound it.
struct Timeline {
  std::vector<std::int64_t> call_start, call_end;
  std::vector<std::int32_t> host_before;  // the call whose end the host clock stood at; -1: none
  std::vector<std::int64_t> gap_from;     // the host gap before the call, in the trace's time
  std::vector<std::uint8_t> waited;       // blocking calls that waited for their activity
  std::vector<std::int64_t> act_start, act_end;
  std::vector<std::int32_t> queued_behind;  // the activity it waited for on its queue; -1: none
  std::int64_t host_end = 0;
  std::int32_t last_call = -1;      // the call the host end follows
  std::int64_t last_gap_from = 0;   // the final host gap, in the trace's time
  std::int32_t last_activity = -1;  // the activity that ends last
  [[nodiscard]] std::int64_t end() const {
    return last_activity >= 0 ? std::max(host_end, act_end[last_activity]) : host_end;
  }
};

class StepReplay {
 public:
  StepReplay(const StepModel& model, const WhatIfChange& change, Speedups& speedups,
             std::size_t queues)
      : model_(model),
        change_(change),
        speedups_(speedups),
        queue_end_(queues, std::numeric_limits<std::int64_t>::min()),
        queue_last_(queues, -1) {}

  Timeline run() {
    const std::size_t calls = model_.calls.size();
    const std::size_t activities = model_.activities.size();
    t_.call_start.resize(calls);
    t_.call_end.resize(calls);
    t_.host_before.resize(calls);
    t_.gap_from.resize(calls);
    t_.waited.resize(calls);
    t_.act_start.resize(activities);
    t_.act_end.resize(activities);
    t_.queued_behind.resize(activities);
    std::int64_t clock = model_.start_ns;        // the replayed host
    std::int64_t trace_clock = model_.start_ns;  // where the trace's host stood
    std::int32_t at_call = -1;
    for (std::uint32_t c = 0; c < calls; ++c) {
      const HostCall& call = model_.calls[c];
      const std::int64_t gap = call.start_ns - trace_clock;
      const std::int64_t start =
          clock + (gap > 0 ? gap - speedups_.host_saving(trace_clock, call.start_ns) : gap);
      t_.call_start[c] = start;
      t_.host_before[c] = at_call;
      t_.gap_from[c] = trace_clock;
      schedule_activities(call, start);
      t_.call_end[c] = call_end(c, call, start);
      if (t_.call_end[c] >= clock) {
        clock = t_.call_end[c];
        at_call = static_cast<std::int32_t>(c);
      }
      trace_clock = std::max(trace_clock, call.end_ns());
    }
    const std::int64_t tail = model_.end_ns - trace_clock;
    t_.host_end = clock + (tail > 0 ? tail - speedups_.host_saving(trace_clock, model_.end_ns) : 0);
    t_.last_call = at_call;
    t_.last_gap_from = trace_clock;
    return std::move(t_);
  }

 private:
  void schedule_activities(const HostCall& call, std::int64_t call_start) {
    for (std::uint32_t a = call.first_activity; a < call.first_activity + call.activity_count;
         ++a) {
      const ModelledActivity& activity = model_.activities[a];
      const std::int64_t ready = call_start + activity.latency_ns;
      const std::int64_t free = queue_end_[activity.queue];
      const bool queued = free > ready;
      t_.act_start[a] = queued ? free : ready;
      t_.act_end[a] = t_.act_start[a] + speedups_.device_duration(activity);
      t_.queued_behind[a] = queued ? queue_last_[activity.queue] : -1;
      queue_end_[activity.queue] = t_.act_end[a];
      queue_last_[activity.queue] = static_cast<std::int32_t>(a);
      if (t_.last_activity < 0 || t_.act_end[a] > t_.act_end[t_.last_activity]) {
        t_.last_activity = static_cast<std::int32_t>(a);
      }
    }
  }

  std::int64_t call_end(std::uint32_t c, const HostCall& call, std::int64_t start) {
    switch (call.kind) {
      case HostCallKind::kLoaderFetch:
        return start +
               static_cast<std::int64_t>(static_cast<double>(call.dur_ns) * change_.loader_left);
      case HostCallKind::kLaunch:
        return start +
               (change_.launch_ns >= 0 ? std::min(call.dur_ns, change_.launch_ns) : call.dur_ns);
      case HostCallKind::kBlocking:
        break;
    }
    std::int64_t resumed = start;
    if (!change_.no_syncs && call.awaited >= 0 && t_.act_end[call.awaited] > start) {
      resumed = t_.act_end[call.awaited];
      t_.waited[c] = 1;
    }
    return resumed + call.after_wait_ns;
  }

  const StepModel& model_;
  const WhatIfChange& change_;
  Speedups& speedups_;
  std::vector<std::int64_t> queue_end_;
  std::vector<std::int32_t> queue_last_;
  Timeline t_;
};

PathClass class_of(HostCallKind kind) {
  switch (kind) {
    case HostCallKind::kLoaderFetch:
      return PathClass::kDataLoading;
    case HostCallKind::kLaunch:
      return PathClass::kLaunchCalls;
    case HostCallKind::kBlocking:
      return PathClass::kSync;
  }
  return PathClass::kHostOps;
}

// Walks back from the step's end along what bound each start, adding every stretch to `tally`.
class PathWalk {
 public:
  PathWalk(const Trace& trace, const StepModel& model, const Timeline& t, PathTally& tally,
           ActivityClassifier& classify)
      : trace_(trace), model_(model), t_(t), tally_(tally), classify_(classify) {}

  void run() {
    if (t_.last_activity >= 0 && t_.act_end[t_.last_activity] > t_.host_end) {
      from_activity(t_.last_activity);
      return;
    }
    const std::int64_t host_tail_from =
        t_.last_call >= 0 ? t_.call_end[t_.last_call] : model_.start_ns;
    host_gap(t_.last_gap_from, model_.end_ns, t_.host_end - host_tail_from);
    if (t_.last_call >= 0) from_call_end(t_.last_call);
  }

 private:
  // Each step of the walk moves to an earlier call or activity, so the loop ends.
  void from_activity(std::int32_t a) {
    while (a >= 0) {
      const ModelledActivity& activity = model_.activities[a];
      tally_.note(activity.event);
      tally_.add(activity_class(activity.event), trace_.events.name[activity.event],
                 t_.act_end[a] - t_.act_start[a]);
      if (t_.queued_behind[a] >= 0) {
        a = t_.queued_behind[a];
        continue;
      }
      tally_.add(PathClass::kLaunchLatency, PathTally::kLaunchLatency,
                 t_.act_start[a] - t_.call_start[activity.call]);
      from_call_start(static_cast<std::int32_t>(activity.call));
      return;
    }
  }

  void from_call_end(std::int32_t c) {
    const HostCall& call = model_.calls[c];
    const StringId name = trace_.events.name[call.event];
    tally_.note(call.event);
    if (t_.waited[c] != 0) {
      tally_.add(PathClass::kSync, name, call.after_wait_ns);
      from_activity(call.awaited);
      return;
    }
    tally_.add(class_of(call.kind), name, t_.call_end[c] - t_.call_start[c]);
    from_call_start(c);
  }

  void from_call_start(std::int32_t c) {
    const std::int32_t before = t_.host_before[c];
    const std::int64_t clock = before >= 0 ? t_.call_end[before] : model_.start_ns;
    host_gap(t_.gap_from[c], model_.calls[c].start_ns, t_.call_start[c] - clock);
    if (before >= 0) from_call_end(before);
  }

  // `replayed` ns of host work, standing for the trace's [from, to): named after the top-level
  // ops that ran then, in proportion.
  void host_gap(std::int64_t from, std::int64_t to, std::int64_t replayed) {
    if (replayed <= 0 || to <= from) return;
    const double scale = static_cast<double>(replayed) / static_cast<double>(to - from);
    const EventTable& e = trace_.events;
    const auto& ops = model_.top_ops;
    // Top-level ops on one thread do not overlap: the few before the first to start at or after
    // `from` are the only earlier ones that can reach into the gap.
    constexpr std::ptrdiff_t kLookBack = 8;
    auto first = std::upper_bound(ops.begin(), ops.end(), from, [&](std::int64_t t, EventIndex op) {
      return t < e.start_ns[op];
    });
    first -= std::min<std::ptrdiff_t>(kLookBack, first - ops.begin());
    std::int64_t named = 0;
    for (auto op = first; op != ops.end() && e.start_ns[*op] < to; ++op) {
      const std::int64_t overlap = std::min(to, e.end_ns(*op)) - std::max(from, e.start_ns[*op]);
      if (overlap <= 0) continue;
      const auto share = static_cast<std::int64_t>(static_cast<double>(overlap) * scale);
      if (share > 0) tally_.note(*op);
      tally_.add(PathClass::kHostOps, trace_.events.name[*op], share);
      named += share;
    }
    tally_.add(PathClass::kHostOps, PathTally::kOutsideOps, replayed - named);
  }

  PathClass activity_class(EventIndex event) {
    switch (classify_(event)) {
      case ActivityClass::kCommunication:
        return PathClass::kCommunication;
      case ActivityClass::kMemory:
        return PathClass::kMemory;
      default:
        return PathClass::kCompute;
    }
  }

  const Trace& trace_;
  const StepModel& model_;
  const Timeline& t_;
  PathTally& tally_;
  ActivityClassifier& classify_;
};

}  // namespace

void replay_steps(const Trace& trace, const StepModels& models, const WhatIfChange& change,
                  PathTally& tally, bool walk_path) {
  Speedups speedups(trace, models, change);
  ActivityClassifier classify(trace);
  for (const StepModel& run : models.runs) {
    const Timeline timeline = StepReplay(run, change, speedups, models.queues.size()).run();
    if (walk_path) PathWalk(trace, run, timeline, tally, classify).run();
    tally.steps += static_cast<std::int64_t>(run.steps.size());
    tally.modelled_ns += timeline.end() - run.start_ns;
    tally.measured_ns += run.measured_ns();
  }
}

}  // namespace stepscope
