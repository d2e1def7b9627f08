// Rule: input-bound. The GPU idles while the step waits on the DataLoader.
//
// Evidence: the step-time breakdown's DataLoader role, which by its priority rule holds only
// DataLoader time not covered by any GPU work, i.e. time the GPU spends idle waiting for input
// (docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9); on a CPU-only trace, data
// loading's share of the step (phases). Threshold: 5 % of the mean step. Below that the input
// pipeline is not what limits the step, and the fixes cost CPU cores and memory.
#include <fmt/format.h>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.05;
// Worker processes and prefetching overlap loading with compute, but collation and the copy of
// the batch stay on the critical path: assume they hide 80 % of the wait.
constexpr double kLikelyHiddenShare = 0.8;

bool is_data_loader_span(std::string_view name) {
  const bool loader = name.rfind("enumerate(DataLoader)#", 0) == 0 && name.size() >= 9 &&
                      name.substr(name.size() - 9) == ".__next__";
  return loader || name.rfind("enumerate(DataPipe)#", 0) == 0;
}

bool has_gpu_activity(const RankAnalyses& rank) {
  for (const GpuDeviceMetrics& device : rank.gpu_metrics.devices) {
    if (device.kernel_busy_ns > 0) return true;
  }
  return false;
}

}  // namespace

std::vector<Finding> check_input_bound(const RankAnalyses& rank) {
  if (!rank.step_breakdown.applicable) return {};
  const double step_ns = mean_step_ns(rank);
  if (step_ns <= 0) return {};
  const bool gpu = has_gpu_activity(rank);
  const std::int64_t waiting_ns =
      gpu ? rank.step_breakdown.mean[StepRole::kDataLoader]
          : (rank.phases.applicable ? rank.phases.mean.host(Phase::kDataLoading) : 0);
  const double share = static_cast<double>(waiting_ns) / step_ns;
  if (share < kThresholdShare) return {};

  const Trace& trace = *rank.trace;
  const std::vector<EventRefs> spans = collect_refs(rank, [&trace](EventIndex i) {
    const EventClass c = trace.events.event_class[i];
    return (c == EventClass::kOp || c == EventClass::kAnnotation) &&
           is_data_loader_span(trace.name_of(i));
  });
  Finding finding;
  finding.id = "input-bound";
  finding.bottleneck = Bottleneck::kInputPipeline;
  finding.part = StepPart::kDataLoading;
  finding.rank = trace.rank;
  finding.title =
      gpu ? fmt::format("The GPU waits {:.1f} % of each step for the DataLoader", share * 100)
          : fmt::format("Data loading takes {:.1f} % of each step", share * 100);
  finding.evidence.push_back(Evidence{gpu ? "DataLoader time with the GPU idle, mean per kept step"
                                          : "data loading time, mean per kept step",
                                      static_cast<double>(waiting_ns) / 1e6, "ms/step", spans});
  finding.evidence.push_back(Evidence{"share of the mean step", share * 100, "%", {}});
  finding.fix =
      "Load batches in the background: DataLoader(..., num_workers=<CPU cores per GPU>, "
      "pin_memory=True, persistent_workers=True, prefetch_factor=2 to 4), then "
      "batch.to(device, non_blocking=True). If the workers are saturated, move decoding and "
      "augmentation to the GPU or cache preprocessed samples.";
  const auto likely =
      static_cast<std::int64_t>(static_cast<double>(waiting_ns) * kLikelyHiddenShare);
  finding.gain = make_gain(
      waiting_ns, likely, step_ns,
      gpu ? "bound: all DataLoader time the GPU spends idle; likely: 80 % of it, since collation "
            "and the host-to-device copy stay on the critical path"
          : "bound: all data loading time of the step; likely: 80 % of it, what worker "
            "processes overlap with compute");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
