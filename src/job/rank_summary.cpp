#include "stepscope/job/rank_summary.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "stepscope/analysis/collective_bandwidth.h"
#include "stepscope/analysis/kernel_class.h"
#include "stepscope/intervals.h"

namespace stepscope::job {

namespace {

constexpr int kMaxAncestors = 64;
constexpr std::size_t kMaxOps = 40;

const CollectiveArgs* collective_args_of(const Trace& trace, EventIndex event) {
  const CollectiveArgs* args = trace.collective_of(event);
  return args != nullptr && args->collective_name != 0 ? args : nullptr;
}

// Kineto writes the collective args on the NCCL kernel, or (older traces) on the
// `record_param_comms` op around its launch.
const CollectiveArgs* find_collective_args(const Trace& trace, EventIndex kernel) {
  if (const CollectiveArgs* own = collective_args_of(trace, kernel)) return own;
  for (EventIndex from : {trace.events.owner_op[kernel], trace.events.launcher[kernel]}) {
    for (int depth = 0; from != kNoEvent && depth < kMaxAncestors; ++depth) {
      if (const CollectiveArgs* args = collective_args_of(trace, from)) return args;
      from = trace.events.parent[from];
    }
  }
  return nullptr;
}

std::string lower_no_underscores(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '_' || c == ' ') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

// A kind name for any collective: the nccl-tests kinds by their names, others normalised.
std::string kind_of(std::string_view collective_name) {
  const Collective c = parse_collective(collective_name);
  if (c != Collective::kOther) return std::string(to_string(c));
  std::string kind = lower_no_underscores(collective_name);
  return kind.empty() ? "unknown" : kind;
}

// The kind written in a kernel's name, for kernels without collective args
// (`ncclDevKernel_AllReduce_Sum_f32_RING_LL`, `ncclKernel_AllGather_...`).
std::string kind_from_kernel_name(std::string_view name) {
  const std::string n = lower_no_underscores(name);
  static constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
      {"allreduce", "allreduce"}, {"allgather", "allgather"}, {"reducescatter", "reducescatter"},
      {"alltoall", "alltoall"},   {"broadcast", "broadcast"}, {"sendrecv", "sendrecv"},
      {"send", "send"},           {"recv", "recv"},           {"reduce", "reduce"}};
  for (const auto& [pattern, kind] : kKinds) {
    if (n.find(pattern) != std::string::npos) return kind_of(kind);
  }
  return "unknown";
}

std::int64_t message_bytes(const Trace& trace, const CollectiveArgs& a) {
  const Collective c = parse_collective(trace.strings.view(a.collective_name));
  const std::int64_t size = dtype_size_bytes(trace.strings.view(a.dtype));
  if (size == 0) return kAbsent;
  const std::int64_t n = a.group_size;
  std::int64_t elements = kAbsent;
  if (c == Collective::kAllGather) {
    elements = a.out_msg_nelems >= 0 ? a.out_msg_nelems
                                     : (a.in_msg_nelems >= 0 && n > 0 ? a.in_msg_nelems * n : -1);
  } else if (a.in_msg_nelems >= 0) {
    elements = a.in_msg_nelems;
  } else if (c == Collective::kReduceScatter) {
    elements = a.out_msg_nelems >= 0 && n > 0 ? a.out_msg_nelems * n : -1;
  } else {
    elements = a.out_msg_nelems;
  }
  return elements < 0 ? kAbsent : elements * size;
}

std::int64_t overlap_with(const IntervalSet& busy, std::int64_t start, std::int64_t end) {
  return end > start ? busy.measure_within({start, end}) : 0;
}

// Collectives of a GPU rank: its communication kernels.
void device_collectives(const Trace& trace, std::vector<SummaryCollective>& out,
                        IntervalSet& compute) {
  ActivityClassifier classify(trace);
  std::vector<Interval> work;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    if (!is_device_activity(trace.events.event_class[i])) continue;
    const ActivityClass c = classify(i);
    if (c == ActivityClass::kComputation) {
      work.push_back({trace.events.start_ns[i], trace.events.end_ns(i)});
      continue;
    }
    if (c != ActivityClass::kCommunication) continue;
    SummaryCollective coll;
    coll.start_ns = trace.events.start_ns[i];
    coll.end_ns = trace.events.end_ns(i);
    if (const CollectiveArgs* args = find_collective_args(trace, i)) {
      coll.kind = kind_of(trace.strings.view(args->collective_name));
      coll.group = std::string(trace.strings.view(args->process_group_name));
      coll.dtype = std::string(trace.strings.view(args->dtype));
      coll.group_size = args->group_size;
      coll.bytes = message_bytes(trace, *args);
    } else {
      coll.kind = kind_from_kernel_name(trace.name_of(i));
    }
    out.push_back(std::move(coll));
  }
  compute = IntervalSet::from_unsorted(std::move(work));
}

// Collectives of a CPU rank (gloo): the `gloo:<kind>` spans on gloo's worker threads, which run
// from the moment the work is picked up to its completion; else `record_param_comms` ops.
void host_collectives(const Trace& trace, const StepsResult& steps,
                      std::vector<SummaryCollective>& out, IntervalSet& compute) {
  std::vector<Interval> work;
  std::vector<EventIndex> step_events;
  for (const Step* s : steps.kept()) step_events.push_back(s->event);
  std::sort(step_events.begin(), step_events.end());
  bool any_gloo = false;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    const EventClass ec = trace.events.event_class[i];
    const std::string_view name = trace.name_of(i);
    if ((ec == EventClass::kAnnotation || ec == EventClass::kOp) && name.starts_with("gloo:")) {
      any_gloo = true;
      SummaryCollective coll;
      coll.kind = kind_of(name.substr(5));
      coll.start_ns = trace.events.start_ns[i];
      coll.end_ns = trace.events.end_ns(i);
      coll.on_device = false;
      out.push_back(std::move(coll));
      continue;
    }
    // Work beside a collective: the ops directly under a step, other than c10d's own calls.
    if (ec == EventClass::kOp && trace.events.parent[i] != kNoEvent &&
        std::binary_search(step_events.begin(), step_events.end(), trace.events.parent[i]) &&
        !name.starts_with("c10d::") && name != "record_param_comms") {
      work.push_back({trace.events.start_ns[i], trace.events.end_ns(i)});
    }
  }
  if (!any_gloo) {
    for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
      if (trace.events.event_class[i] != EventClass::kOp) continue;
      const CollectiveArgs* args = collective_args_of(trace, i);
      if (args == nullptr) continue;
      SummaryCollective coll;
      coll.kind = kind_of(trace.strings.view(args->collective_name));
      coll.group = std::string(trace.strings.view(args->process_group_name));
      coll.dtype = std::string(trace.strings.view(args->dtype));
      coll.group_size = args->group_size;
      coll.bytes = message_bytes(trace, *args);
      coll.start_ns = trace.events.start_ns[i];
      coll.end_ns = trace.events.end_ns(i);
      coll.on_device = false;
      out.push_back(std::move(coll));
    }
  }
  compute = IntervalSet::from_unsorted(std::move(work));
}

}  // namespace

RankSummary summarize_rank(const Trace& trace, const RankAnalyses& analyses,
                           const Diagnosis& diagnosis) {
  RankSummary s;
  s.rank = trace.rank;
  s.rank_source = std::string(to_string(trace.rank_source));
  s.world_size = trace.distributed.world_size;
  s.backend = trace.distributed.backend;
  s.file = trace.source_path;
  bool any = false;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    const std::int64_t start = trace.events.start_ns[i];
    const std::int64_t end = trace.events.end_ns(i);
    if (!any || start < s.trace_start_ns) s.trace_start_ns = start;
    if (!any || end > s.trace_end_ns) s.trace_end_ns = end;
    any = true;
    if (is_device_activity(trace.events.event_class[i])) s.has_device_activity = true;
  }
  s.bottleneck = std::string(to_string(diagnosis.bottleneck));
  s.summary = diagnosis.summary;

  IntervalSet compute;
  if (s.has_device_activity) {
    device_collectives(trace, s.collectives, compute);
  } else {
    host_collectives(trace, analyses.steps, s.collectives, compute);
  }
  std::stable_sort(s.collectives.begin(), s.collectives.end(),
                   [](const SummaryCollective& a, const SummaryCollective& b) {
                     return a.start_ns < b.start_ns;
                   });
  std::map<std::string, std::int64_t> next_order;
  for (SummaryCollective& c : s.collectives) {
    if (c.group.empty()) c.group = "default";
    c.order = next_order[c.group]++;
    c.overlapped_ns = overlap_with(compute, c.start_ns, c.end_ns);
  }

  const std::vector<const Step*> kept = analyses.steps.kept();
  for (const Step* step : kept) {
    SummaryStep row;
    row.number = step->number;
    row.start_ns = step->start_ns;
    row.end_ns = step->end_ns;
    s.steps.push_back(row);
  }
  std::vector<Interval> comm_spans;
  for (SummaryCollective& c : s.collectives) {
    comm_spans.push_back({c.start_ns, c.end_ns});
    for (const SummaryStep& step : s.steps) {
      if (c.start_ns >= step.start_ns && c.start_ns < step.end_ns) {
        c.step = step.number;
        break;
      }
    }
  }
  const IntervalSet comm = IntervalSet::from_unsorted(std::move(comm_spans));
  for (SummaryStep& step : s.steps) {
    step.communication_ns = overlap_with(comm, step.start_ns, step.end_ns);
    const StepBreakdownRow* roles = nullptr;
    for (const StepBreakdownRow& r : analyses.step_breakdown.steps) {
      if (r.step_number == step.number) roles = &r;
    }
    if (s.has_device_activity && roles != nullptr) {
      step.compute_ns = roles->roles[StepRole::kKernel] + roles->roles[StepRole::kMemcpy] +
                        roles->roles[StepRole::kMemset];
      step.idle_ns = std::max<std::int64_t>(
          0, roles->roles.total_ns - step.compute_ns - roles->roles[StepRole::kCommunication]);
    } else {
      step.compute_ns = std::max<std::int64_t>(0, step.duration_ns() - step.communication_ns);
    }
    for (const StepPhases& p : analyses.phases.steps) {
      if (p.step_number == step.number) step.phase_ns = p.times.host_ns;
    }
  }

  for (const Finding& f : diagnosis.findings) {
    SummaryFinding out;
    out.id = f.id;
    out.title = f.title;
    out.severity = std::string(to_string(f.severity));
    out.bottleneck = std::string(to_string(f.bottleneck));
    out.phase = std::string(to_string(f.part));
    out.likely_gain_ns = f.gain.likely_ns;
    out.likely_share = f.gain.likely_share;
    out.fix = f.fix;
    s.findings.push_back(std::move(out));
  }

  if (!kept.empty()) {
    std::map<std::string, std::int64_t> by_name;
    for (const OperatorRow& row : analyses.operators.rows) {
      if (row.unattributed) continue;
      by_name[row.name] += std::max(row.total_cpu_ns, row.total_device_ns);
    }
    for (const auto& [name, ns] : by_name) {
      s.ops.push_back({name, ns / static_cast<std::int64_t>(kept.size())});
    }
    std::sort(s.ops.begin(), s.ops.end(), [](const SummaryOp& a, const SummaryOp& b) {
      return a.ns_per_step != b.ns_per_step ? a.ns_per_step > b.ns_per_step : a.name < b.name;
    });
    if (s.ops.size() > kMaxOps) s.ops.resize(kMaxOps);
  }
  // Kineto writes `ts` relative to baseTimeNanoseconds when it is present: on a job across hosts
  // the bases differ, so summaries hold absolute times.
  if (trace.base_time_ns > 0) {
    const std::int64_t base = trace.base_time_ns;
    s.trace_start_ns += base;
    s.trace_end_ns += base;
    for (SummaryStep& step : s.steps) {
      step.start_ns += base;
      step.end_ns += base;
    }
    for (SummaryCollective& c : s.collectives) {
      c.start_ns += base;
      c.end_ns += base;
    }
  }
  if (kept.empty()) s.notes.emplace_back("no kept steps");
  if (!s.has_device_activity) s.notes.emplace_back("no GPU events: host-side collectives only");
  return s;
}

}  // namespace stepscope::job
