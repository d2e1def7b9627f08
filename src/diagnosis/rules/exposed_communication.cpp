// Rule: exposed communication. Collectives that run with no computation beside them add their
// whole duration to the step (docs/metrics/06-communication-computation-overlap.md §6.3:
// exposed_comm = |COMM − COMP|).
//
// Evidence: exposed communication per step and its share, the overlap share, and the
// collective kernels behind it. Threshold: 10 % of the mean step; below that overlap tuning
// rarely pays for its complexity.
#include <fmt/format.h>

#include <algorithm>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"
#include "stepscope/analysis/kernel_class.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.10;
// Bucketing and prefetching hide communication behind the backward pass, but the last bucket's
// all-reduce follows the last gradient: assume half of the exposed time can be hidden.
constexpr double kLikelyHiddenShare = 0.5;

}  // namespace

std::vector<Finding> check_exposed_communication(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty() || !rank.gpu_temporal.applicable) return {};
  std::int64_t exposed_ns = 0;
  for (const StepOverlap& step : rank.gpu_temporal.steps)
    exposed_ns += step.exposed_communication_ns;
  const auto steps = static_cast<double>(kept.size());
  const auto exposed_per_step = static_cast<std::int64_t>(static_cast<double>(exposed_ns) / steps);
  const double share = static_cast<double>(exposed_per_step) / step_ns;
  if (share < kThresholdShare) return {};
  const Trace& trace = *rank.trace;
  ActivityClassifier classify(trace);
  StepCursor in_step(rank.steps);
  const std::vector<EventRefs> collectives = collect_refs(rank, [&](EventIndex i) {
    return classify(i) == ActivityClass::kCommunication &&
           in_step.at(trace.events.start_ns[i]) != nullptr;
  });
  double overlap = 0;
  for (const DeviceTemporal& device : rank.gpu_temporal.devices) {
    overlap = std::max(overlap, device.overlap_share.value_or(0));
  }
  Finding finding;
  finding.id = "exposed-communication";
  finding.bottleneck = Bottleneck::kCommunication;
  finding.part = StepPart::kCommunication;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "Collectives with no computation beside them take {:.1f} % of each step", share * 100);
  finding.evidence.push_back(Evidence{"exposed communication per step",
                                      static_cast<double>(exposed_per_step) / 1e6, "ms/step",
                                      collectives});
  finding.evidence.push_back(
      Evidence{"communication overlapped with computation", overlap * 100, "%", {}});
  finding.fix =
      "Overlap collectives with the backward pass: DistributedDataParallel(model, "
      "bucket_cap_mb=<25 to 100>, gradient_as_bucket_view=True, static_graph=True); with FSDP, "
      "backward_prefetch=BackwardPrefetch.BACKWARD_PRE and forward_prefetch=True. If the "
      "collectives themselves are slow, check their bus bandwidth against the interconnect "
      "(NCCL_DEBUG=INFO shows the transport) and compress or shard gradients.";
  finding.gain = make_gain(
      exposed_per_step,
      static_cast<std::int64_t>(static_cast<double>(exposed_per_step) * kLikelyHiddenShare),
      step_ns,
      "bound: communication time with no kernel of computation running; likely: half of it, "
      "which bucketing and prefetching overlap with compute");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
