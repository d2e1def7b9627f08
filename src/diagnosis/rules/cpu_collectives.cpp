// Rule: CPU collectives (CPU-only runs). A gloo rank spends its step inside collectives while
// its main thread has nothing else to do: DDP's gradient all_reduce that the backward pass does
// not hide, or explicit all_reduce calls between computations.
//
// Evidence, per kept step: the time covered by collective spans (`gloo:*` on gloo's worker
// threads, `c10d::*` and `record_param_comms` ops, any thread) during which the step's own
// thread runs no top-level op other than a collective; the collectives' whole time and how much
// of it the main thread overlapped with work. Threshold: exposed collective time >= 10 % of the
// mean step, as for GPU communication: below that overlap tuning rarely pays for its complexity.
// A collective also lasts while it waits for the slowest rank: this rule cannot tell waiting
// from transfer on one rank; `stepscope analyze FOLDER` with every rank's trace does.
#include <fmt/format.h>

#include "diagnosis/gain.h"
#include "diagnosis/host_timeline.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.10;
// Bucketed all_reduce overlaps with the rest of the backward pass, but the last bucket follows
// the last gradient: assume half of the exposed time can be hidden.
constexpr double kLikelyHiddenShare = 0.5;

struct CollectiveTime {
  std::int64_t total_ns = 0;    // collective spans, merged, inside kept steps
  std::int64_t exposed_ns = 0;  // of which the step's thread ran no other op
  std::vector<EventRefs> refs;
};

// Work of the steps' threads: top-level ops other than collectives, less the collectives those
// threads call from inside them (DDP's hooks call all_reduce from inside the backward ops).
// Collectives on other threads (gloo's workers) run beside this work and leave it whole.
IntervalSet main_thread_work(const RankAnalyses& rank) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::vector<Interval> work;
  std::vector<Interval> called;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr || !on_step_thread(trace, *step, i)) continue;
    if (is_host_collective(trace, i)) {
      called.push_back({e.start_ns[i], e.end_ns(i)});
    } else if (is_top_level_work_op(trace, i)) {
      work.push_back({e.start_ns[i], e.end_ns(i)});
    }
  }
  return IntervalSet::from_unsorted(std::move(work))
      .subtract(IntervalSet::from_unsorted(std::move(called)));
}

CollectiveTime measure(const RankAnalyses& rank) {
  const Trace& trace = *rank.trace;
  const IntervalSet collectives = collective_spans(trace);
  const IntervalSet exposed = collectives.subtract(main_thread_work(rank));
  CollectiveTime out;
  for (const Step* step : rank.steps.kept()) {
    const Interval window{step->start_ns, step->end_ns};
    out.total_ns += collectives.measure_within(window);
    out.exposed_ns += exposed.measure_within(window);
  }
  out.refs = collect_refs(rank, [&](EventIndex i) {
    return is_host_collective(trace, i) && step_at(rank.steps, trace.events.start_ns[i]) != nullptr;
  });
  keep_most_frequent(out.refs, 10);
  return out;
}

}  // namespace

std::vector<Finding> check_cpu_collectives(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  const Trace& trace = *rank.trace;
  if (step_ns <= 0 || kept.empty() || !is_cpu_only(trace)) return {};
  const CollectiveTime time = measure(rank);
  const auto steps = static_cast<double>(kept.size());
  const double exposed_per_step = static_cast<double>(time.exposed_ns) / steps;
  const double share = exposed_per_step / step_ns;
  if (share < kThresholdShare) return {};

  Finding finding;
  finding.id = "cpu-collectives";
  finding.bottleneck = Bottleneck::kCommunication;
  finding.part = StepPart::kCommunication;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "CPU collectives (gloo) with the main thread otherwise idle take {:.1f} % of each step",
      share * 100);
  finding.evidence.push_back(Evidence{"collective time with no other op on the step's thread",
                                      exposed_per_step / 1e6, "ms/step", time.refs});
  finding.evidence.push_back(Evidence{
      "collective time per step", static_cast<double>(time.total_ns) / steps / 1e6, "ms/step", {}});
  finding.evidence.push_back(
      Evidence{"collective time overlapped with work",
               time.total_ns > 0 ? 100.0 * static_cast<double>(time.total_ns - time.exposed_ns) /
                                       static_cast<double>(time.total_ns)
                                 : 0.0,
               "%",
               {}});
  if (trace.distributed.world_size > 0) {
    finding.evidence.push_back(Evidence{
        "ranks in the job", static_cast<double>(trace.distributed.world_size), "count", {}});
  }
  finding.fix =
      "Let DistributedDataParallel overlap the all_reduce with the backward pass instead of "
      "calling all_reduce after backward(): DistributedDataParallel(model, "
      "gradient_as_bucket_view=True), with bucket_cap_mb tuned (default 25: smaller buckets "
      "start communicating earlier in the backward pass, larger ones make fewer calls); "
      "accumulate gradients over several micro-batches under model.no_sync() so the all_reduce "
      "runs once per optimizer step, and give each rank more work per step. On GPUs use the "
      "NCCL backend, not gloo. A collective also lasts while it waits for the slowest rank, and "
      "gloo's time grows with the number of ranks: run `stepscope analyze FOLDER` on every "
      "rank's trace to tell waiting for a slow peer from the transfer itself.";
  finding.gain = make_gain(
      static_cast<std::int64_t>(exposed_per_step),
      static_cast<std::int64_t>(exposed_per_step * kLikelyHiddenShare), step_ns,
      "bound: collective time with the main thread otherwise idle; likely: half of it, since "
      "the last bucket's all_reduce follows the last gradient and cannot be overlapped");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
