// The figures of the compute-efficiency analysis (compute_efficiency.h).
#pragma once

#include "stepscope/analysis/compute_efficiency.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<OpFlops> {
  static constexpr std::string_view kName = "OpFlops";
  static std::span<const Field> list() {
    using T = OpFlops;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "op name"),
        D::field<&T::dtype>("dtype", Unit::kNone, "first input's dtype as the profiler names it"),
        D::field<&T::calls>("calls", Unit::kCount, "calls in kept steps"),
        D::field<&T::flops>("flops", Unit::kFlops, "over the kept steps"),
        D::field<&T::time_ns>("time_us", Unit::kMicrosecondsFromNs,
                              "its kernels' device time (CPU-only trace: its host time)"),
        D::field<&T::achieved_tflops>("achieved_tflops", Unit::kTflopsPerSecond, "flops / time"),
        D::field<&T::source>("source", Unit::kNone,
                             "`trace` (with_flops=True) or `shapes` (matrix multiplies)"),
        D::field<&T::bytes>("bytes", Unit::kBytes,
                            "least bytes moved: inputs read once, output written once, from the "
                            "shapes and dtype size; 0 where the shapes do not tell them"),
        D::field<&T::intensity>("intensity", Unit::kFlopsPerByte,
                                "arithmetic intensity, flops / bytes; null without bytes"),
        D::field<&T::bound>("bound", Unit::kNone,
                            "`memory_bound` below the ridge point, `compute_bound` at or above "
                            "it, `unknown` without the device's peak or bandwidth"),
        D::field<&T::attainable_tflops>("attainable_tflops", Unit::kTflopsPerSecond,
                                        "the roof at its intensity: min(peak, intensity x "
                                        "bandwidth); null when unknown"),
        D::field<&T::attainable_share>("attainable_share", Unit::kShare,
                                       "achieved / attainable; null when unknown"),
    };
    return k;
  }
};

template <>
struct Fields<ComputeEfficiencyResult> {
  static constexpr std::string_view kName = "ComputeEfficiency";
  static std::span<const Field> list() {
    using T = ComputeEfficiencyResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without an op with FLOPs"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::flops_per_step>("flops_per_step", Unit::kFlops, "mean over kept steps"),
        D::field<&T::achieved_tflops_per_step>("achieved_tflops", Unit::kTflopsPerSecond,
                                               "flops per step / mean step time"),
        D::field<&T::device_name>("device_name", Unit::kNone,
                                  "the device the peak is for; empty on the CPU"),
        D::field<&T::dtype>("dtype", Unit::kNone, "the dtype with the most FLOPs"),
        D::field<&T::peak_tflops>("peak_tflops", Unit::kTflopsPerSecond,
                                  "dense datasheet peak for the device and dtype; 0 unknown"),
        D::field<&T::mfu>("mfu", Unit::kShare,
                          "achieved / peak (model FLOPs utilisation); null when the peak is "
                          "unknown"),
        D::field<&T::peak_source>("peak_source", Unit::kNone,
                                  "the datasheet of the peak and the bandwidth"),
        D::field<&T::peak_bandwidth_gbps>("peak_bandwidth_gbps", Unit::kGbPerSecond,
                                          "datasheet memory bandwidth of the device; 0 unknown"),
        D::field<&T::ridge_point>("ridge_point", Unit::kFlopsPerByte,
                                  "peak / bandwidth for the device and dtype: ops below it are "
                                  "memory-bound; null when either is unknown"),
        D::field<&T::ops>("ops", Unit::kNone, "op names by FLOPs, most first"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
