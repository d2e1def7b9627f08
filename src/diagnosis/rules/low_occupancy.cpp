// Rule: the GPU is busy but underused. High utilization says kernels are running, not that they
// fill the GPU: a kernel with fewer thread blocks than half the SMs (`blocks per SM` < 0.5,
// docs/metrics/10-tb-plugin-gpu-summary-metrics.md §10.2) leaves most of the chip idle while it
// runs. Kineto's estimated achieved occupancy is not used: it reads low (or 0, unknown) for large,
// efficient GEMM tiles, which an H100 run showed.
//
// Evidence: the share of kernel time in such kernels, the kernels, and the GPU utilization.
// Threshold: utilization >= 60 % and those kernels >= 30 % of kernel time.
#include <fmt/format.h>

#include <algorithm>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kMinUtilization = 0.6;
constexpr double kThresholdShare = 0.3;
constexpr double kFewBlocksPerSm = 0.5;

}  // namespace

std::vector<Finding> check_low_occupancy(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  double utilization = 0;
  for (const GpuDeviceMetrics& device : rank.gpu_metrics.devices) {
    utilization = std::max(utilization, device.utilization);
  }
  if (utilization < kMinUtilization) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t kernel_ns = 0;
  std::int64_t low_ns = 0;
  EventRefList kernels;
  StepCursor in_step(rank.steps);
  for (const EventIndex i : e.device_activities) {
    if (e.event_class[i] != EventClass::kKernel) continue;
    const Step* step = in_step.at(e.start_ns[i]);
    if (step == nullptr) continue;
    kernel_ns += e.dur_ns[i];
    const DeviceArgs* args = trace.device_args_of(i);
    if (args == nullptr) continue;
    if (args->blocks_per_sm <= 0 || args->blocks_per_sm >= kFewBlocksPerSm) continue;
    low_ns += e.dur_ns[i];
    kernels.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
  }
  if (kernel_ns == 0) return {};
  const double share = static_cast<double>(low_ns) / static_cast<double>(kernel_ns);
  if (share < kThresholdShare) return {};
  const auto steps = static_cast<double>(kept.size());
  const double per_step = static_cast<double>(low_ns) / steps;
  Finding finding;
  finding.id = "low-occupancy";
  finding.bottleneck = Bottleneck::kGpuCompute;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "The GPU is {:.0f} % busy, but {:.0f} % of kernel time runs on less than half its SMs",
      utilization * 100, share * 100);
  finding.evidence.push_back(Evidence{"kernel time with fewer blocks than half the SMs",
                                      per_step / 1e6, "ms/step", kernels.most_frequent(5)});
  finding.evidence.push_back(Evidence{"share of kernel time", share * 100, "%", {}});
  finding.evidence.push_back(Evidence{"GPU utilization (kernels)", utilization * 100, "%", {}});
  finding.fix =
      "Give each kernel more parallel work: a larger batch (or micro-batch) size; batch small "
      "matrix multiplies together (torch.bmm, grouped GEMM) instead of looping; "
      "torch.compile(model, mode=\"max-autotune\") to choose tile sizes for these shapes.";
  finding.gain = make_gain(static_cast<std::int64_t>(per_step * 0.5 * utilization),
                           static_cast<std::int64_t>(per_step * 0.2 * utilization), step_ns,
                           "kernels that fill the GPU run the same work in less time: bound = "
                           "half the underused kernel time, likely = a fifth, both times the GPU "
                           "utilization (only GPU-bound time shortens the step)");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
