// Rule: host-work-idle. The GPU idles and nothing the trace names explains it: not the
// DataLoader, not a sync, not a late launch (the idle attribution's fourth owner, "other host
// work"; docs/metrics/16-idle-attribution.md). The host is busy with something else, in profiled
// ops (a metric computed on the CPU, a checkpoint save) or outside any (Python between ops, I/O,
// compilation, a sleep), while no GPU work is queued.
//
// Evidence: that idle per kept step, and the top-level host events overlapping it most.
// Threshold: >= 10 % of the mean step, as for launch-bound: idle at step boundaries is normal
// below that.
#include <fmt/format.h>

#include <algorithm>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.10;
// Some of the host work has to happen; moving or overlapping half of it is typical.
constexpr double kLikelyRemovedShare = 0.5;
constexpr std::size_t kEvidenceEvents = 5;

bool is_host_work(EventClass c) {
  return c == EventClass::kOp || c == EventClass::kAnnotation || c == EventClass::kPython;
}

// Outermost profiled host work: no op or annotation encloses it, except a ProfilerStep#.
bool is_outermost(const Trace& trace, EventIndex i) {
  const EventTable& e = trace.events;
  for (EventIndex at = e.parent[i]; at != kNoEvent; at = e.parent[at]) {
    if (trace.name_of(at).rfind("ProfilerStep#", 0) != 0) return false;
  }
  return trace.name_of(i).rfind("ProfilerStep#", 0) != 0;
}

std::vector<EventRefs> host_work_during(const RankAnalyses& rank, const IntervalSet& idle) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  WeightedRefs overlaps;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_host_work(e.event_class[i]) || !is_outermost(trace, i)) continue;
    const std::int64_t during = idle.measure_within({e.start_ns[i], e.end_ns(i)});
    if (during <= 0) continue;
    overlaps.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step_at(rank.steps, e.start_ns[i]),
                 during);
  }
  return overlaps.heaviest(kEvidenceEvents);
}

}  // namespace

std::vector<Finding> check_host_work_idle(const RankAnalyses& rank) {
  const IdleAttributionResult& attribution = rank.idle_attribution;
  const double step_ns = mean_step_ns(rank);
  if (!attribution.applicable || step_ns <= 0) return {};
  const std::int64_t idle_per_step = attribution.per_step_ns(IdleOwner::kOtherHost);
  const double share = static_cast<double>(idle_per_step) / step_ns;
  if (share < kThresholdShare) return {};

  const IntervalSet& idle = attribution.of(IdleOwner::kOtherHost);
  const std::vector<EventRefs> work = host_work_during(rank, idle);
  Finding finding;
  finding.id = "host-work-idle";
  finding.bottleneck = Bottleneck::kHostOverhead;
  finding.part = StepPart::kWholeStep;
  finding.rank = rank.trace->rank;
  finding.title = fmt::format(
      "The GPU idles {:.1f} % of each step for no cause the trace names (no DataLoader wait, "
      "sync or late launch)",
      share * 100);
  finding.evidence.push_back(
      Evidence{"GPU idle owned by no DataLoader wait, sync or late launch (other host work), "
               "mean per kept step",
               static_cast<double>(idle_per_step) / 1e6,
               "ms/step",
               {}});
  finding.evidence.push_back(
      Evidence{work.empty() ? "outermost host events during that idle: none (the host was outside "
                              "every profiled op)"
                            : "outermost host events during that idle, by idle overlapped",
               static_cast<double>(work.size()), "events", work});
  finding.fix =
      "Find what the host does while the GPU waits: the events above, or with "
      "torch.profiler.profile(with_stack=True) the Python frames. Move that work out of the "
      "step (compute metrics and save checkpoints every N steps, warm up torch.compile before "
      "profiling), run it on another thread or process, or queue the next GPU work before it. "
      "If the next kernels were queued already, they waited on an event: look for "
      "cudaStreamWaitEvent and cross-stream or cross-device dependencies in the timeline.";
  finding.gain = make_gain(
      idle_per_step,
      static_cast<std::int64_t>(static_cast<double>(idle_per_step) * kLikelyRemovedShare), step_ns,
      "bound: the GPU idle no earlier cause owns; likely: half of it, what moving or overlapping "
      "host work usually recovers");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
