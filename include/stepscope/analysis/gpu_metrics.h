// tb_plugin's GPU summary metrics (docs/metrics/10-tb-plugin-gpu-summary-metrics.md §10):
// utilization, estimated SM efficiency, estimated achieved occupancy and the share of kernel time
// on tensor cores, per device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

// Kernel time matched by one tensor-core name pattern.
struct TensorCoreRuleTime {
  std::string pattern;    // the substring that matched, e.g. "16816" or "gmma"
  bool extended = false;  // stepscope's extension of tb_plugin's list (a heuristic)
  std::int64_t kernels = 0;
  std::int64_t kernel_ns = 0;
};

struct GpuDeviceMetrics {
  std::int32_t device = -1;
  std::int64_t window_ns = 0;
  std::int64_t kernels = 0;         // kernels of this device that overlap the window
  std::int64_t kernel_busy_ns = 0;  // |U(kernels) ∩ window|
  double utilization = 0;           // kernel_busy_ns / window_ns
  // Native only: kernels, memcpys and memsets together.
  std::int64_t busy_with_memory_ns = 0;
  std::optional<double> utilization_with_memory;
  std::optional<double> sm_efficiency;  // fraction of the window; absent without `blocks per SM`
  std::int64_t kernels_with_blocks_per_sm = 0;
  std::optional<double> achieved_occupancy;  // fraction (Kineto writes a percent)
  std::int64_t kernels_with_occupancy = 0;
  // Tensor cores: native, kernel time inside the window; compat-tb, tb_plugin's "Kernel Time
  // using Tensor Cores" over op-attributed kernels, whole trace.
  std::int64_t tensor_core_kernel_ns = 0;
  std::int64_t tensor_core_base_kernel_ns = 0;  // the denominator
  std::optional<double> tensor_core_share;      // absent: no kernel attributed to any op
  std::vector<TensorCoreRuleTime> tensor_core_rules;
};

struct GpuMetricsResult {
  Mode mode = Mode::kNative;
  bool applicable = false;
  std::string not_applicable_reason;  // "no GPU activity", "no kept steps"
  std::optional<Interval> window;
  std::vector<GpuDeviceMetrics> devices;  // by device id
  // Tensor-core share of all kernels of the trace (tb_plugin's `tc_used_ratio`), compat-tb only.
  std::optional<double> tensor_core_share_all_kernels;
  bool tensor_core_heuristic = false;  // native: the extended name list is a heuristic
  std::vector<std::string> quirks;     // compat-tb artefacts that shaped the result
};

// Native: over the window W of `steps`, per device, kernels include accelerator kernels.
// compat-tb: tb_plugin 0.4.3 (`gpu_metrics_parser.py`, `tensor_cores_parser.py` @041e7ce9).
GpuMetricsResult compute_gpu_metrics(const Trace& trace, const StepsResult& steps,
                                     const AnalysisOptions& options);

}  // namespace stepscope
