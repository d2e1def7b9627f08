// Rule: tensor cores idle. Float32 matrix multiplies and convolutions run on the CUDA cores of
// a GPU that has tensor cores (compute capability 7.0 or higher).
//
// Evidence: GPU time in fp32 GEMM / convolution kernels (names with `sgemm`, `scudnn`, `ffma`,
// or a GEMM / convolution name with `f32` and no tensor-core marker;
// docs/metrics/10-tb-plugin-gpu-summary-metrics.md §10.4 for the tensor-core names), per step and
// as a share of kernel time, with the device and its compute capability. Threshold: 10 % of kernel
// time. Below that a change of precision is not worth its numerical risk.
//
// Advice that knows what was done: when tensor-core kernels already take at least as much time
// as the fp32 ones, mixed precision is in use (autocast or TF32), and what still runs in fp32 is
// usually there on purpose (autocast's fp32 list, the loss, a head kept in fp32): no finding.
//
// Gain: the kept steps replayed with these kernels on tensor cores (analysis/tensor_core_change.h:
// the device's half-precision peak over its fp32 peak, the memory floor, autocast's casts); the
// bound is all of their time sped up by that ratio.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "analysis/name_test.h"
#include "analysis/tensor_core_change.h"
#include "analysis/tensor_core_names.h"
#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"
#include "trace/ascii.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.10;

bool uses_tensor_cores(std::string_view name) { return match_tensor_core(name).has_value(); }

bool has_tensor_cores(const Trace& trace, std::int32_t device) {
  const DeviceProperties* properties = trace.device_properties(device);
  return properties != nullptr && properties->compute_major >= 7;
}

}  // namespace

std::vector<Finding> check_tensor_cores_idle(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t kernel_ns = 0;
  std::int64_t fp32_ns = 0;
  EventRefList kernels;
  std::int64_t tensor_core_ns = 0;
  NameTest<uses_tensor_cores> tensor_core_kernel(trace);
  NameTest<is_fp32_matmul_kernel> fp32_matmul_kernel(trace);
  std::string device_name;
  int compute_major = 0;
  int compute_minor = 0;
  StepCursor in_step(rank.steps);
  for (const EventIndex i : e.device_activities) {
    if (e.event_class[i] != EventClass::kKernel) continue;
    const Step* step = in_step.at(e.start_ns[i]);
    if (step == nullptr) continue;
    kernel_ns += e.dur_ns[i];
    const std::int32_t device = trace.activity_device(i);
    const bool tensor_cores = tensor_core_kernel(i);
    if (tensor_cores) tensor_core_ns += e.dur_ns[i];
    if (!has_tensor_cores(trace, device) || tensor_cores || !fp32_matmul_kernel(i)) continue;
    fp32_ns += e.dur_ns[i];
    kernels.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    const DeviceProperties* properties = trace.device_properties(device);
    device_name = properties->name;
    compute_major = properties->compute_major;
    compute_minor = properties->compute_minor;
  }
  if (kernel_ns == 0) return {};
  const double share = static_cast<double>(fp32_ns) / static_cast<double>(kernel_ns);
  if (share < kThresholdShare || tensor_core_ns >= fp32_ns) return {};
  const auto steps = static_cast<double>(kept.size());
  const double fp32_per_step = static_cast<double>(fp32_ns) / steps;
  // Faster kernels shorten the step only where the GPU is the critical path.
  double gpu_share = 0;
  for (const GpuDeviceMetrics& device : rank.gpu_metrics.devices) {
    gpu_share = std::max(gpu_share, device.utilization);
  }
  Finding finding;
  finding.id = "tensor-cores-idle";
  finding.bottleneck = Bottleneck::kGpuCompute;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "{:.1f} % of kernel time is float32 matrix math on a GPU with tensor cores ({} sm_{}{})",
      share * 100, device_name, compute_major, compute_minor);
  finding.evidence.push_back(Evidence{"fp32 GEMM / convolution kernel time per step",
                                      fp32_per_step / 1e6, "ms/step", kernels.most_frequent(10)});
  finding.evidence.push_back(Evidence{"share of kernel time", share * 100, "%", {}});
  finding.evidence.push_back(Evidence{"GPU utilization (kernels)", gpu_share * 100, "%", {}});
  finding.fix =
      "Run the forward pass and the loss under torch.autocast(device_type=\"cuda\", "
      "dtype=torch.bfloat16) (use torch.float16 with torch.amp.GradScaler before compute "
      "capability 8.0), or keep float32 weights and allow TF32: "
      "torch.set_float32_matmul_precision(\"high\") and torch.backends.cudnn.allow_tf32 = True.";
  const std::optional<double> peak_speedup = tensor_core_speedup(device_name);
  const double speedup = peak_speedup.value_or(kUnknownDeviceTensorCoreSpeedup);
  WhatIfChange fix;
  fix.tensor_cores = true;
  finding.gain = make_predicted_gain(
      rank, fix, static_cast<std::int64_t>(fp32_per_step * (1 - 1 / speedup)),
      static_cast<std::int64_t>(fp32_per_step * (1 - 1 / speedup) * gpu_share),
      peak_speedup ? fmt::format("fp32 GEMM time x (1 - 1/{:.1f}), the {} half-precision peak "
                                 "over its fp32 peak",
                                 speedup, device_name)
                   : fmt::format("fp32 GEMM time x (1 - 1/{:g}), since the {} is not in the "
                                 "peak table",
                                 speedup, device_name));
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
