// What moving float32 matrix math onto tensor cores (autocast to bf16 / fp16, or TF32) does to
// each fp32 GEMM and convolution kernel of a trace: the what-if behind `whatif --tensor-cores`
// and the tensor-cores-idle finding's gain (docs/metrics/17-critical-path-and-what-if.md).
//
// A kernel keeps its efficiency against the peak of its new precision, so its compute time
// shrinks by the device's half-precision peak over its fp32 peak (measured on an H100: the same
// GEMMs ran 13.9x faster in bf16, against a peak ratio of 14.8x). It cannot run faster than its
// operands move at half the bytes (the roofline's memory floor), and autocast adds the casts of
// each forward matmul's weight: fp32 read and bf16 written in the forward, and the gradient cast
// back to fp32 in the backward, at the device's memory bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "analysis/name_test.h"
#include "stepscope/trace.h"

namespace stepscope {

// fp32 GEMM / convolution kernel names (`sgemm`, `scudnn`, `ffma`, or a GEMM / convolution name
// with `f32` or `float`) that do not run on tensor cores.
[[nodiscard]] bool is_fp32_matmul_kernel(std::string_view kernel_name);

// The device's dense half-precision tensor-core peak over its fp32 peak (H100 SXM: 14.8); nullopt
// for a device the peak table does not hold.
[[nodiscard]] std::optional<double> tensor_core_speedup(std::string_view device_name);

// Taken for a device the peak table does not hold: the low end of what bf16 / TF32 GEMMs gain
// over fp32 CUDA-core GEMMs on every GPU with tensor cores since Volta.
inline constexpr double kUnknownDeviceTensorCoreSpeedup = 2.0;

class TensorCoreChange {
 public:
  explicit TensorCoreChange(const Trace& trace);

  // The kernel's duration with its matmul on tensor cores, its share of the casts included; the
  // duration unchanged for any other activity.
  [[nodiscard]] std::int64_t duration(EventIndex activity, std::int64_t dur_ns);

 private:
  // What one op's fp32 matmul kernels share: the memory floor and the casts, spread over them.
  struct OpCost {
    double floor_ns = 0;
    double cast_ns = 0;
    std::int64_t kernels = 0;
  };
  OpCost cost_of(EventIndex op, std::int32_t device) const;

  const Trace& trace_;
  NameTest<is_fp32_matmul_kernel> fp32_matmul_;
  std::unordered_map<EventIndex, OpCost> op_costs_;  // by owner op; kNoEvent: no op
};

}  // namespace stepscope
