// Rule: input-bound. The GPU idles while the step waits on the DataLoader.
//
// Evidence: the GPU idle during DataLoader spans, which the idle attribution gives to data loading
// before any other cause (docs/metrics/16-idle-attribution.md); on a CPU-only trace, data
// loading's share of the step (phases). The advice adapts when worker processes are already in
// use (the iterator is `_MultiProcessingDataLoaderIter`). Where `stepscope run` sampled the input
// pipeline's Python stacks (`Trace::host->input_sampling`), the evidence names the functions its
// time went to and the fix starts with the first. Threshold: 5 % of the mean step and 100 µs per
// step. Below that the input pipeline is not what limits the step, and the fixes cost CPU cores
// and memory.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.05;
// At least this much per step: a tiny step's 40 µs of fetching a ready batch is a share
// but nothing a DataLoader setting can remove.
constexpr std::int64_t kMinimumWaitNs = 100'000;

constexpr std::string_view kFixWithoutWorkers =
    "Load batches in the background: DataLoader(..., num_workers=<CPU cores per GPU>, "
    "pin_memory=True, persistent_workers=True, prefetch_factor=2 to 4), then "
    "batch.to(device, non_blocking=True). If the workers are saturated, move decoding and "
    "augmentation to the GPU or cache preprocessed samples.";
constexpr std::string_view kFixWithWorkers =
    "The DataLoader already uses worker processes and still cannot keep up. Raise num_workers "
    "only if CPU cores are free (stepscope monitor shows the workers' CPU use); otherwise make "
    "each sample cheaper: cache decoded or preprocessed samples, decode and augment on the GPU "
    "(torchvision.transforms.v2 on CUDA tensors, NVIDIA DALI), use a faster image decoder, and "
    "keep pin_memory=True, persistent_workers=True, prefetch_factor=2 to 4.";
// The likely gain replays the steps with every batch ready when asked (what the fix aims at);
// the bound is what the finding owns.
constexpr std::string_view kBoundGpu = "all DataLoader time the GPU spends idle";
constexpr std::string_view kBoundCpu = "all data loading time of the step";
constexpr std::string_view kBoundWithWorkers =
    "all the wait (workers already run: more help only with free CPU cores, which the trace "
    "cannot show)";

// DataLoader(num_workers > 0) names its iterator so: the workers are already there.
bool uses_workers(const std::vector<EventRefs>& spans) {
  return std::any_of(spans.begin(), spans.end(), [](const EventRefs& ref) {
    return ref.name.find("_MultiProcessingDataLoaderIter") != std::string::npos;
  });
}

// Functions under this share of the input's sampled time are left out of the evidence.
constexpr double kMinimumFunctionShare = 0.02;
constexpr std::size_t kMostFunctions = 5;

std::string where_sampled(const InputSampling& sampling) {
  if (sampling.worker_processes == 0) return "the process that iterates the DataLoader";
  return fmt::format("{} DataLoader worker process{}", sampling.worker_processes,
                     sampling.worker_processes == 1 ? "" : "es");
}

// The line most samples were at; the function's first line when the file does not say.
std::int64_t busiest_line(const SampledFunction& function) {
  return function.hottest_line >= 0 ? function.hottest_line : function.line;
}

std::string place(const SampledFunction& function) {
  return fmt::format("{} ({}:{})", function.function, function.file, busiest_line(function));
}

// The sampled functions as evidence, the busiest as the finding's code and the fix's start.
void add_sampled_functions(const InputSampling& sampling, Finding& finding) {
  if (sampling.fetch_samples <= 0 || sampling.functions.empty()) return;
  const auto fetch = static_cast<double>(sampling.fetch_samples);
  finding.evidence.push_back(Evidence{
      fmt::format("samples of the input pipeline's Python stacks inside the DataLoader's fetch, "
                  "every {:g} ms in {}",
                  sampling.interval_ms, where_sampled(sampling)),
      fetch,
      "samples",
      {}});
  for (std::size_t i = 0; i < sampling.functions.size() && i < kMostFunctions; ++i) {
    const SampledFunction& function = sampling.functions[i];
    const double share = static_cast<double>(function.samples) / fetch;
    if (share < kMinimumFunctionShare) break;
    finding.evidence.push_back(
        Evidence{fmt::format("input pipeline time in {}, first line {} (sampled)", place(function),
                             function.line),
                 share * 100,
                 "% of sampled input time",
                 {}});
  }
  const SampledFunction& busiest = sampling.functions.front();
  finding.fix =
      fmt::format("Start with {}, where {:.0f} % of the input pipeline's sampled time goes. {}",
                  place(busiest), static_cast<double>(busiest.samples) / fetch * 100, finding.fix);
  finding.code = CodeLocation{busiest.file, busiest_line(busiest), busiest.function, ""};
}

bool has_gpu_activity(const RankAnalyses& rank) {
  for (const GpuDeviceMetrics& device : rank.gpu_metrics.devices) {
    if (device.kernel_busy_ns > 0) return true;
  }
  return false;
}

}  // namespace

std::vector<Finding> check_input_bound(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  if (step_ns <= 0) return {};
  const bool gpu = has_gpu_activity(rank);
  if (gpu && !rank.idle_attribution.applicable) return {};
  const std::int64_t waiting_ns =
      gpu ? rank.idle_attribution.per_step_ns(IdleOwner::kDataLoading)
          : (rank.phases.applicable ? rank.phases.mean.host(Phase::kDataLoading) : 0);
  const double share = static_cast<double>(waiting_ns) / step_ns;
  if (share < kThresholdShare || waiting_ns < kMinimumWaitNs) return {};

  const Trace& trace = *rank.trace;
  const std::vector<EventRefs> spans = collect_refs(rank, [&trace](EventIndex i) {
    const EventClass c = trace.events.event_class[i];
    return (c == EventClass::kOp || c == EventClass::kAnnotation) &&
           is_data_loader_span(trace.name_of(i));
  });
  const bool workers = uses_workers(spans);
  Finding finding;
  finding.id = "input-bound";
  finding.bottleneck = Bottleneck::kInputPipeline;
  finding.part = StepPart::kDataLoading;
  finding.rank = trace.rank;
  finding.title =
      gpu ? fmt::format("The GPU waits {:.1f} % of each step for the DataLoader", share * 100)
          : fmt::format("Data loading takes {:.1f} % of each step", share * 100);
  finding.evidence.push_back(Evidence{
      gpu ? "GPU idle while the host waits for the DataLoader (this finding owns it: it comes "
            "first in the idle attribution), mean per kept step"
          : "data loading time, mean per kept step",
      static_cast<double>(waiting_ns) / 1e6, "ms/step", spans});
  finding.evidence.push_back(Evidence{"share of the mean step", share * 100, "%", {}});
  finding.evidence.push_back(
      Evidence{"worker processes already in use (_MultiProcessingDataLoaderIter)",
               workers ? 1.0 : 0.0,
               "yes/no",
               {}});
  finding.fix = std::string(workers ? kFixWithWorkers : kFixWithoutWorkers);
  if (trace.host && trace.host->input_sampling) {
    add_sampled_functions(*trace.host->input_sampling, finding);
  }
  WhatIfChange fix;
  fix.loader_left = 0;
  finding.gain = make_predicted_gain(rank, fix, waiting_ns, waiting_ns,
                                     workers ? kBoundWithWorkers
                                     : gpu   ? kBoundGpu
                                             : kBoundCpu);
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
