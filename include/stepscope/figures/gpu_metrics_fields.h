// The figures of the GPU metrics (gpu_metrics.h).
#pragma once

#include "stepscope/analysis/gpu_metrics.h"
#include "stepscope/figures/fields.h"
#include "stepscope/figures/steps_fields.h"

namespace stepscope::figures {

template <>
struct Fields<TensorCoreRuleTime> {
  static constexpr std::string_view kName = "TensorCoreRule";
  static std::span<const Field> list() {
    using T = TensorCoreRuleTime;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::pattern>("pattern", Unit::kNone, "the name substring that matched"),
        D::field<[](const T& r) {
          return std::string_view(r.extended ? "stepscope_extended_heuristic" : "tb_plugin");
        }>("list", Unit::kNone, "`tb_plugin` or `stepscope_extended_heuristic`"),
        D::field<&T::kernels>("kernels", Unit::kCount, "kernels matched"),
        D::field<&T::kernel_ns>("kernel_us", Unit::kMicrosecondsFromNs, "their time"),
    };
    return k;
  }
};

template <>
struct Fields<GpuDeviceMetrics> {
  static constexpr std::string_view kName = "GpuDeviceMetrics";
  static std::span<const Field> list() {
    using T = GpuDeviceMetrics;
    using D = Describe<T>;
    constexpr auto native = [](const T&, const Context& c) { return c.mode != Mode::kCompatTb; };
    constexpr Unit us = Unit::kMicrosecondsFromNs;
    static const Field k[] = {
        D::field<&T::device>("device", Unit::kNone, "device id"),
        D::field<&T::window_ns>("window_us", us, "|W|"),
        D::field<&T::kernels>("kernels", Unit::kCount, "kernels overlapping W"),
        D::field<&T::kernel_busy_ns>("kernel_busy_us", us, "|U(kernels) ∩ W|"),
        D::field<&T::utilization>("utilization", Unit::kShare, "kernel busy / window"),
        D::field<&T::busy_with_memory_ns>("busy_with_memory_us", us,
                                          "kernels, memcpys and memsets together (native)")
            .when<native>(),
        D::field<&T::utilization_with_memory>("utilization_with_memory", Unit::kShare,
                                              "busy with memory / window (native)")
            .when<native>(),
        D::field<&T::sm_efficiency>("est_sm_efficiency", Unit::kShare,
                                    "estimated; null without `blocks per SM`"),
        D::field<&T::kernels_with_blocks_per_sm>("kernels_with_blocks_per_sm", Unit::kCount,
                                                 "kernels that carry it"),
        D::field<&T::achieved_occupancy>("est_achieved_occupancy", Unit::kShare,
                                         "estimated; null without occupancy"),
        D::field<&T::kernels_with_occupancy>("kernels_with_occupancy", Unit::kCount,
                                             "kernels that carry it"),
        D::field<&T::tensor_core_kernel_ns>("tensor_core_kernel_us", us,
                                            "time of kernels named as tensor-core kernels"),
        D::field<&T::tensor_core_base_kernel_ns>("tensor_core_base_kernel_us", us,
                                                 "the denominator"),
        D::field<&T::tensor_core_share>("tensor_core_share", Unit::kShare,
                                        "null when no kernel is attributed to an op"),
        D::field<&T::tensor_core_rules>("tensor_core_rules", Unit::kNone,
                                        "the name rules that matched"),
    };
    return k;
  }
};

template <>
struct Fields<GpuMetricsResult> {
  static constexpr std::string_view kName = "GpuMetrics";
  static void enter(const GpuMetricsResult& r, Context& c) { c.mode = r.mode; }
  static std::span<const Field> list() {
    using T = GpuMetricsResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::mode>("mode", Unit::kNone, "`native` or `compat-tb`"),
        D::field<&T::applicable>("applicable", Unit::kNone,
                                 "false without GPU activity or kept steps"),
        D::field<&T::not_applicable_reason>("reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::window>("window", Unit::kNone, "W; null without one"),
        D::field<&T::tensor_core_heuristic>("tensor_core_heuristic", Unit::kNone,
                                            "native: the extended name list is a heuristic"),
        D::field<&T::tensor_core_share_all_kernels>("tensor_core_share_all_kernels", Unit::kShare,
                                                    "compat-tb: tb_plugin's tc_used_ratio")
            .when<[](const T& r) { return r.mode == Mode::kCompatTb; }>(),
        D::field<&T::devices>("devices", Unit::kNone, "by device id"),
        D::field<&T::quirks>("quirks", Unit::kNone, "compat-tb artefacts"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
