// Compute efficiency: floating-point operations of the matrix multiplies and convolutions (and,
// where the trace carries its `flops`, of every op the profiler counts), what rate they ran at, and
// the share of the device's peak the step achieves (model FLOPs utilisation, MFU). Each op also
// gets a roofline position: bytes moved from its shapes, FLOP per byte, and whether that puts it
// under the memory-bandwidth slope or the flat compute peak of the device.
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
  // Roofline position. Bytes are the minimum a kernel moves: each input read once and the output
  // written once, from the shapes and the dtype's size; 0 where the shapes do not tell them.
  double bytes = 0;                         // over the kept steps
  std::optional<double> intensity;          // flops / bytes, FLOP per byte
  std::string bound = "unknown";            // "memory_bound", "compute_bound" or "unknown"
  std::optional<double> attainable_tflops;  // min(peak, intensity x bandwidth)
  std::optional<double> attainable_share;   // achieved / attainable
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
  double peak_bandwidth_gbps = 0;       // device memory bandwidth, 10^9 B/s; 0 unknown
  std::optional<double> ridge_point;    // peak FLOP/s / bandwidth, FLOP per byte
  std::vector<OpFlops> ops;             // by FLOPs, most first
};

// FLOPs of one op from its name, input shapes (`Input Dims`) and `Concrete Inputs` (a conv's
// stride, padding, dilation and groups): matrix multiplies (2·M·K·N) and convolutions
// (2·N·C_out·output positions·C_in/groups·kernel). nullopt for any other op or unusable shapes.
std::optional<double> op_flops(std::string_view op,
                               const std::vector<std::vector<std::int64_t>>& shapes,
                               const std::vector<std::string>& concrete);

// Bytes one op moves at least: its inputs read once and its output written once, for the ops
// op_flops counts, with `dtype_size` bytes per element. nullopt where op_flops has no count.
std::optional<double> op_bytes(std::string_view op,
                               const std::vector<std::vector<std::int64_t>>& shapes,
                               const std::vector<std::string>& concrete, double dtype_size);

// Bytes per element of a dtype as the profiler names it ("c10::BFloat16": 2); nullopt unknown.
std::optional<double> dtype_size(std::string_view dtype);

// Dense peak (10^12 FLOP/s) of a device for a dtype, with its source; {0, ""} when unknown.
struct PeakFlops {
  double tflops = 0;
  std::string_view source;
};
PeakFlops peak_flops(std::string_view device_name, std::string_view dtype);

// Peak memory bandwidth (10^9 B/s) of a device from the same datasheets; {0, ""} when unknown.
struct PeakBandwidth {
  double gbps = 0;
  std::string_view source;
};
PeakBandwidth peak_bandwidth(std::string_view device_name);

// Where an op of `intensity` FLOP/byte sits under the roof of a device with `peak_tflops` and
// `bandwidth_gbps`: fills bound, attainable_tflops and attainable_share (unknown when a peak is 0).
void place_on_roofline(OpFlops& op, double peak_tflops, double bandwidth_gbps);

ComputeEfficiencyResult compute_efficiency(const Trace& trace, const StepsResult& steps,
                                           const AnalysisOptions& options);

}  // namespace stepscope
