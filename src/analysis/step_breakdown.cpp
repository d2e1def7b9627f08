// Step-time breakdown (docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9). Source of the
// compat-tb rules: pytorch/kineto@041e7ce9 tb_plugin/torch_tb_profiler/profiler/event_parser.py
// `StepParser._parse_step` (roles) and overall_parser.py
// `OverallParser.Statistics.create_from_range` (priority subtraction).
#include "stepscope/analysis/step_breakdown.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_set>

#include "analysis/name_test.h"
#include "analysis/tb_event_types.h"
#include "analysis/tb_time.h"
#include "stepscope/analysis/data_loading.h"
#include "stepscope/analysis/kernel_class.h"
#include "stepscope/intervals.h"

namespace stepscope {

namespace {

constexpr std::size_t kRolesBeforeOther = kStepRoleCount - 1;

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// tb_plugin trace.py `NcclOpNameSet` / `GlooOpNameSet`: exact names only.
bool is_tb_communication_op_name(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kCollectives = {
      "broadcast", "reduce", "all_reduce", "all_gather", "reduce_scatter"};
  if (!starts_with(name, "nccl:") && !starts_with(name, "gloo:")) return false;
  const std::string_view rest = name.substr(5);  // both prefixes are five bytes
  return std::find(kCollectives.begin(), kCollectives.end(), rest) != kCollectives.end();
}

bool is_native_communication_op_name(std::string_view name) {
  return starts_with(name, "nccl:") || starts_with(name, "gloo:") || starts_with(name, "c10d::") ||
         name == "record_param_comms";
}

// Runtime calls that block the host on the device
// (docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9 native runtime split).
bool is_sync_call_name(std::string_view name) {
  if (name.find("Synchronize") != name.npos) return true;
  if (name.find("StreamWaitEvent") != name.npos) return true;
  const bool copy = starts_with(name, "cudaMemcpy") || starts_with(name, "hipMemcpy") ||
                    starts_with(name, "cuMemcpy");
  return copy && name.find("Async") == name.npos;
}

// Intervals merged as they arrive. Events come in start order (the table is sorted by start),
// so a role holds about its merged set rather than one entry per event: a sort of millions of
// intervals, and the memory for them, is avoided. Merging an interval into the previous one
// keeps their union, which is all the final set depends on, so an interval out of start order
// (float rounding in compat-tb could do that) is only kept for IntervalSet::from_unsorted,
// which sorts only what is out of order.
class MergingIntervals {
 public:
  void add(Interval interval) {
    if (interval.end <= interval.start) return;  // dropped by IntervalSet too
    if (!intervals_.empty()) {
      Interval& last = intervals_.back();
      if (interval.start >= last.start && interval.start <= last.end) {
        last.end = std::max(last.end, interval.end);
        return;
      }
    }
    intervals_.push_back(interval);
  }
  // Frees the list as it returns, so that one role at a time is held twice.
  [[nodiscard]] IntervalSet finish() && {
    std::vector<Interval> list = std::move(intervals_);
    return IntervalSet::from_unsorted(std::move(list));
  }

 private:
  std::vector<Interval> intervals_;
};

struct RoleSets {
  std::array<MergingIntervals, kRolesBeforeOther> intervals;
  MergingIntervals sync_calls;  // native: blocking runtime calls
  std::vector<std::string> quirks;
};

void add(RoleSets& sets, StepRole role, const EventTable& e, EventIndex i) {
  sets.intervals[static_cast<std::size_t>(role)].add({e.start_ns[i], e.end_ns(i)});
}

// compat-tb: the interval as tb_plugin's float64 µs arithmetic sees it.
void add_tb(RoleSets& sets, StepRole role, const EventTable& e, EventIndex i) {
  sets.intervals[static_cast<std::size_t>(role)].add(
      tb::float_interval(e.start_ns[i], e.dur_ns[i]));
}

// tb_plugin keys communication ops by External id, and a missing id (None) is a key too.
std::unordered_set<std::int64_t> tb_communication_external_ids(const Trace& trace) {
  std::unordered_set<std::int64_t> ids;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (tb::is_host_node(trace, i) && is_tb_communication_op_name(trace.name_of(i))) {
      ids.insert(trace.events.external_id[i]);
    }
  }
  return ids;
}

RoleSets tb_role_sets(const Trace& trace) {
  const EventTable& e = trace.events;
  const std::unordered_set<std::int64_t> comm_ids = tb_communication_external_ids(trace);
  RoleSets sets;
  bool gpu_annotation = false;
  bool driver = false;
  bool missing_id_match = false;
  bool comm_kernel_in_kernel_role = false;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    const std::string_view name = trace.name_of(i);
    if (c == EventClass::kKernel) {
      if (comm_ids.contains(e.external_id[i])) {
        missing_id_match |= e.external_id[i] < 0;
        add_tb(sets, StepRole::kCommunication, e, i);
      } else {
        comm_kernel_in_kernel_role |= classify_activity(c, name) == ActivityClass::kCommunication;
        add_tb(sets, StepRole::kKernel, e, i);
      }
    } else if (c == EventClass::kMemcpy) {
      add_tb(sets, StepRole::kMemcpy, e, i);
    } else if (c == EventClass::kMemset) {
      add_tb(sets, StepRole::kMemset, e, i);
    } else if (c == EventClass::kRuntime) {
      if (tb::is_runtime(trace, i)) add_tb(sets, StepRole::kRuntime, e, i);
    } else if (c == EventClass::kDriver) {
      driver = true;
    } else if (tb::is_host_node(trace, i)) {
      gpu_annotation |= c == EventClass::kGpuAnnotation;
      // Operator and annotation types only: a legacy `python` DataLoader event is CPU Exec.
      if (!tb::is_legacy_python(trace, i) && is_data_loader_span(name)) {
        add_tb(sets, StepRole::kDataLoader, e, i);
      } else if (tb::is_legacy_python(trace, i) || !tb::is_profiler_step_name(name)) {
        add_tb(sets,
               is_tb_communication_op_name(name) ? StepRole::kCommunication : StepRole::kCpuExec, e,
               i);
      }
    }
  }
  if (comm_kernel_in_kernel_role) sets.quirks.emplace_back("communication_kernels_in_kernel_role");
  if (missing_id_match) sets.quirks.emplace_back("kernels_without_external_id_as_communication");
  if (gpu_annotation) sets.quirks.emplace_back("gpu_user_annotation_as_cpu_exec");
  if (driver) sets.quirks.emplace_back("cuda_driver_calls_ignored");
  return sets;
}

// The name tests of the native pass, each decided once per distinct name (a trace has millions
// of events and a few thousand names).
struct NativeNameTests {
  explicit NativeNameTests(const Trace& trace)
      : communication_op(trace), sync_call(trace), profiler_step(trace), data_loader(trace) {}
  NameTest<is_native_communication_op_name> communication_op;
  NameTest<is_sync_call_name> sync_call;
  NameTest<tb::is_profiler_step_name> profiler_step;
  NameTest<is_data_loader_span> data_loader;
};

// Native: a computation kernel counts as communication when its launching op, or an op around
// it, is a collective.
bool launched_by_communication_op(const Trace& trace, EventIndex activity, NativeNameTests& names) {
  for (EventIndex at = trace.events.owner_op[activity]; at != kNoEvent;
       at = trace.events.parent[at]) {
    if (names.communication_op(at)) return true;
  }
  return false;
}

std::optional<StepRole> native_device_role(const Trace& trace, EventIndex i,
                                           ActivityClassifier& classify, NativeNameTests& names) {
  const EventClass c = trace.events.event_class[i];
  switch (classify(i)) {
    case ActivityClass::kCommunication:
      return StepRole::kCommunication;
    case ActivityClass::kMemory: {
      // ROCm fill kernels are memsets in all but category.
      if (c == EventClass::kMemset) return StepRole::kMemset;
      if (c == EventClass::kMemcpy) return StepRole::kMemcpy;
      const std::string_view name = trace.name_of(i);
      return name.find("fill") != name.npos ? StepRole::kMemset : StepRole::kMemcpy;
    }
    case ActivityClass::kComputation:
      return launched_by_communication_op(trace, i, names) ? StepRole::kCommunication
                                                           : StepRole::kKernel;
    case ActivityClass::kNotActivity:
      break;
  }
  return std::nullopt;
}

RoleSets native_role_sets(const Trace& trace) {
  const EventTable& e = trace.events;
  ActivityClassifier classify(trace);
  NativeNameTests names(trace);
  RoleSets sets;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    if (is_device_activity(c)) {
      if (const std::optional<StepRole> role = native_device_role(trace, i, classify, names)) {
        add(sets, *role, e, i);
      }
    } else if (is_launch_call(c)) {
      add(sets, StepRole::kRuntime, e, i);
      if (names.sync_call(i)) sets.sync_calls.add({e.start_ns[i], e.end_ns(i)});
    } else if (c == EventClass::kOp || c == EventClass::kAnnotation) {
      if (names.profiler_step(i)) continue;
      // Host spans of collectives are CPU time; their device time is Communication above.
      add(sets, names.data_loader(i) ? StepRole::kDataLoader : StepRole::kCpuExec, e, i);
    } else if (tb::is_legacy_python(trace, i)) {
      add(sets, StepRole::kCpuExec, e, i);
    }
  }
  return sets;
}

struct Costs {
  std::array<IntervalSet, kStepRoleCount> role;
  IntervalSet runtime_sync;
};

// Native priority subtraction: each role takes what is still free of the kept steps.
Costs subtract_in_priority(const IntervalSet& steps,
                           std::array<IntervalSet, kRolesBeforeOther>& roles) {
  Costs costs;
  IntervalSet free = steps;
  for (std::size_t r = 0; r < kRolesBeforeOther; ++r) {
    costs.role[r] = free.intersect(roles[r]);
    roles[r] = IntervalSet();  // no longer needed: free it before the next role
    free = free.subtract(costs.role[r]);
  }
  costs.role[kRolesBeforeOther] = std::move(free);
  return costs;
}

// tb_plugin's version: while nothing is free (at the start, or after a role filled every step)
// a role is taken whole and the free time restarts from the full steps.
Costs subtract_like_tb(const IntervalSet& steps, std::array<IntervalSet, kRolesBeforeOther>& roles,
                       bool& restarted) {
  Costs costs;
  IntervalSet slots;
  for (std::size_t r = 0; r < kRolesBeforeOther; ++r) {
    if (!slots.empty()) {
      costs.role[r] = slots.intersect(roles[r]);
      roles[r] = IntervalSet();  // no longer needed: free it before the next role
    } else {
      costs.role[r] = std::move(roles[r]);
      slots = steps;
      restarted |= r > 0;
    }
    slots = slots.subtract(costs.role[r]);
  }
  costs.role[kRolesBeforeOther] = std::move(slots);
  return costs;
}

RoleTimes times_within(const Costs& costs, Interval step, bool split_runtime) {
  RoleTimes times;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) times.ns[r] = costs.role[r].measure_within(step);
  times.total_ns = step.length();
  if (split_runtime) {
    times.runtime_sync_ns = costs.runtime_sync.measure_within(step);
    times.runtime_launch_ns = times[StepRole::kRuntime] - times.runtime_sync_ns;
  }
  return times;
}

void accumulate(RoleTimes& sum, const RoleTimes& step) {
  for (std::size_t r = 0; r < kStepRoleCount; ++r) sum.ns[r] += step.ns[r];
  sum.runtime_sync_ns += step.runtime_sync_ns;
  sum.runtime_launch_ns += step.runtime_launch_ns;
  sum.total_ns += step.total_ns;
}

std::int64_t rounded_mean(std::int64_t sum, std::int64_t count) {
  return (sum + count / 2) / count;  // sums are never negative
}

RoleTimes mean_of(const RoleTimes& sum, std::int64_t count) {
  RoleTimes mean;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) mean.ns[r] = rounded_mean(sum.ns[r], count);
  mean.runtime_sync_ns = rounded_mean(sum.runtime_sync_ns, count);
  mean.runtime_launch_ns = rounded_mean(sum.runtime_launch_ns, count);
  mean.total_ns = rounded_mean(sum.total_ns, count);
  return mean;
}

}  // namespace

std::string_view to_string(StepRole role) {
  switch (role) {
    case StepRole::kKernel:
      return "kernel";
    case StepRole::kMemcpy:
      return "memcpy";
    case StepRole::kMemset:
      return "memset";
    case StepRole::kCommunication:
      return "communication";
    case StepRole::kRuntime:
      return "runtime";
    case StepRole::kDataLoader:
      return "data_loader";
    case StepRole::kCpuExec:
      return "cpu_exec";
    case StepRole::kOther:
      return "other";
  }
  return "unknown";
}

std::int64_t RoleTimes::roles_sum_ns() const {
  std::int64_t sum = 0;
  for (std::int64_t value : ns) sum += value;
  return sum;
}

StepBreakdownResult compute_step_breakdown(const Trace& trace, const StepsResult& steps,
                                           const AnalysisOptions& options) {
  StepBreakdownResult result;
  result.mode = options.mode == Mode::kCompatTb ? Mode::kCompatTb : Mode::kNative;
  const std::vector<const Step*> kept = steps.kept();
  if (kept.empty()) {
    result.not_applicable_reason = "no kept steps";
    return result;
  }
  result.applicable = true;
  const bool compat = result.mode == Mode::kCompatTb;
  RoleSets sets = compat ? tb_role_sets(trace) : native_role_sets(trace);
  std::array<IntervalSet, kRolesBeforeOther> roles;
  for (std::size_t r = 0; r < kRolesBeforeOther; ++r) {
    roles[r] = std::move(sets.intervals[r]).finish();
  }
  std::vector<Interval> step_spans;
  step_spans.reserve(kept.size());
  for (const Step* step : kept) {
    // tb_plugin's step bounds are float µs too; a bound that was `ts + dur` in the plugin may
    // differ by one 0.25 µs step at epoch scale, well inside the conformance tolerance.
    step_spans.push_back(
        compat ? Interval{tb::float_instant(step->start_ns), tb::float_instant(step->end_ns)}
               : Interval{step->start_ns, step->end_ns});
  }
  const IntervalSet step_set = IntervalSet::from_unsorted(step_spans);
  bool restarted = false;
  Costs costs =
      compat ? subtract_like_tb(step_set, roles, restarted) : subtract_in_priority(step_set, roles);
  if (!compat) {
    costs.runtime_sync = costs.role[static_cast<std::size_t>(StepRole::kRuntime)].intersect(
        std::move(sets.sync_calls).finish());
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const Step* step = kept[i];
    StepBreakdownRow row{step->number, step->start_ns, step->end_ns,
                         times_within(costs, step_spans[i], !compat)};
    accumulate(result.sum, row.roles);
    result.steps.push_back(row);
  }
  result.mean = mean_of(result.sum, static_cast<std::int64_t>(kept.size()));
  result.quirks = std::move(sets.quirks);
  if (restarted) result.quirks.emplace_back("free_time_restarts_after_a_role_fills_the_steps");
  return result;
}

}  // namespace stepscope
