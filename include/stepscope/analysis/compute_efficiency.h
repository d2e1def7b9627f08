// Compute efficiency: floating-point operations of the matrix multiplies and convolutions (and,
// where the trace carries its `flops`, of every op the profiler counts), what rate they ran at, and
// the share of the device's peak the step achieves (model FLOPs utilisation, MFU).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// One op name's FLOPs over the kept steps. Only the outermost counting op of a call tree counts
// (aten::linear, not the aten::addmm inside it), so nothing is counted twice.
struct OpFlops {
  std::string name;
  std::string dtype;  // of its first input, as the profiler names it ("float", "c10::BFloat16")
  std::int64_t calls = 0;
  double flops = 0;            // over the kept steps
  std::int64_t time_ns = 0;    // its kernels' device time, or its host time on a CPU-only trace
  double achieved_tflops = 0;  // flops / time, 10^12 per second
  std::string source;          // "trace" (`flops` recorded with with_flops=True) or "shapes"
};

struct ComputeEfficiencyResult {
  bool applicable = false;
  std::string not_applicable_reason;
  double flops_per_step = 0;            // mean over the kept steps
  double achieved_tflops_per_step = 0;  // flops_per_step / mean step time
  std::string device_name;              // the device the peak is for ("" on the CPU)
  std::string dtype;                    // the dtype with the most FLOPs
  double peak_tflops = 0;               // dense peak of that device and dtype; 0 unknown
  std::optional<double> mfu;            // achieved / peak, when the peak is known
  std::string peak_source;              // the datasheet the peak comes from
  std::vector<OpFlops> ops;             // by FLOPs, most first
};

// FLOPs of one op from its name, input shapes (`Input Dims`) and `Concrete Inputs` (a conv's
// stride, padding, dilation and groups): matrix multiplies (2·M·K·N) and convolutions
// (2·N·C_out·output positions·C_in/groups·kernel). nullopt for any other op or unusable shapes.
std::optional<double> op_flops(std::string_view op,
                               const std::vector<std::vector<std::int64_t>>& shapes,
                               const std::vector<std::string>& concrete);

// Dense peak (10^12 FLOP/s) of a device for a dtype, with its source; {0, ""} when unknown.
struct PeakFlops {
  double tflops = 0;
  std::string_view source;
};
PeakFlops peak_flops(std::string_view device_name, std::string_view dtype);

ComputeEfficiencyResult compute_efficiency(const Trace& trace, const StepsResult& steps,
                                           const AnalysisOptions& options);

}  // namespace stepscope
