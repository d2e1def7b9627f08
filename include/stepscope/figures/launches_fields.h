// The figures of the launch statistics (launches.h).
#pragma once

#include "stepscope/analysis/launches.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<LaunchClassStats> {
  static constexpr std::string_view kName = "LaunchClassStats";
  static std::span<const Field> list() {
    using T = LaunchClassStats;
    using D = Describe<T>;
    // Percentiles interpolate between two ns values, so they can end in half a ns: written as
    // exact µs, not rounded to the ns.
    constexpr auto cpu = [](const T& s) { return s.cpu_duration_ns.count > 0; };
    constexpr auto gpu = [](const T& s) { return s.gpu_duration_ns.count > 0; };
    constexpr auto delay = [](const T& s) { return s.launch_delay_ns.count > 0; };
    constexpr Unit us = Unit::kMicrosecondsFromNsExact;
    static const Field k[] = {
        D::field<&T::count>("count", Unit::kCount, "(call, device activity) pairs"),
        D::field<[](const T& s) { return s.cpu_duration_ns.p50; }>(
            "cpu_duration_p50_us", us, "median duration of the launch call")
            .when<cpu>(),
        D::field<[](const T& s) { return s.cpu_duration_ns.p95; }>(
            "cpu_duration_p95_us", us, "95th percentile of the call's duration")
            .when<cpu>(),
        D::field<[](const T& s) { return s.cpu_duration_ns.max; }>("cpu_duration_max_us", us,
                                                                   "longest call")
            .when<cpu>(),
        D::field<[](const T& s) { return s.gpu_duration_ns.p50; }>(
            "gpu_duration_p50_us", us, "median duration of the activity")
            .when<gpu>(),
        D::field<[](const T& s) { return s.gpu_duration_ns.p95; }>(
            "gpu_duration_p95_us", us, "95th percentile of the activity's duration")
            .when<gpu>(),
        D::field<[](const T& s) { return s.gpu_duration_ns.max; }>("gpu_duration_max_us", us,
                                                                   "longest activity")
            .when<gpu>(),
        D::field<[](const T& s) { return s.launch_delay_ns.p50; }>(
            "launch_delay_p50_us", us, "median of activity start − call end (signed)")
            .when<delay>(),
        D::field<[](const T& s) { return s.launch_delay_ns.p95; }>(
            "launch_delay_p95_us", us, "95th percentile of the launch delay")
            .when<delay>(),
        D::field<[](const T& s) { return s.launch_delay_ns.max; }>("launch_delay_max_us", us,
                                                                   "longest launch delay")
            .when<delay>(),
        D::field<&T::signed_delay_negative_count>("signed_delay_negative_count", Unit::kCount,
                                                  "activities that start before their call "
                                                  "returns"),
        D::field<&T::cpu_duration_over_50us_count>("cpu_duration_over_50us_count", Unit::kCount,
                                                   "calls longer than 50 µs"),
        D::field<&T::launch_delay_over_100us_count>("launch_delay_over_100us_count", Unit::kCount,
                                                    "launch delays over 100 µs"),
        D::field<&T::short_kernel_count>("short_kernel_count", Unit::kCount,
                                         "call ≤ 50 µs and activity shorter than the call"),
        D::field<[](const T& s) { return s.launch_delay_ns.few_samples; }>(
            "few_samples", Unit::kNone, "n < 20: percentiles interpolate towards the maximum")
            .when<[](const T& s) { return 0 < s.count; }>(),
    };
    return k;
  }
};

// The per-class statistics, keyed by class name.
struct LaunchClasses {
  const LaunchesResult* launches = nullptr;
};

template <LaunchClass C>
const LaunchClassStats& launch_class_stats(const LaunchClasses& classes) {
  return classes.launches->of(C);
}

template <>
struct Fields<LaunchClasses> {
  static constexpr std::string_view kName = "LaunchClasses";
  static std::span<const Field> list() {
    using D = Describe<LaunchClasses>;
    static const Field k[] = {
        D::field<&launch_class_stats<LaunchClass::kKernelLaunch>>(
            std::string(to_string(LaunchClass::kKernelLaunch)), Unit::kNone, "kernel launches"),
        D::field<&launch_class_stats<LaunchClass::kGraphLaunch>>(
            std::string(to_string(LaunchClass::kGraphLaunch)), Unit::kNone, "CUDA graph launches"),
        D::field<&launch_class_stats<LaunchClass::kAsyncMemory>>(
            std::string(to_string(LaunchClass::kAsyncMemory)), Unit::kNone,
            "asynchronous copies and sets"),
        D::field<&launch_class_stats<LaunchClass::kSyncMemory>>(
            std::string(to_string(LaunchClass::kSyncMemory)), Unit::kNone,
            "synchronous copies and sets"),
    };
    return k;
  }
};

template <>
struct Fields<LaunchesResult> {
  static constexpr std::string_view kName = "Launches";
  static std::span<const Field> list() {
    using T = LaunchesResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without linked launches"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<[](const T&) {
          return std::string_view("launch calls starting in the step window");
        }>("scope", Unit::kNone, "which calls are counted"),
        D::field<&T::outside_window_pairs>("outside_window_pairs", Unit::kCount,
                                           "linked pairs whose call starts outside W"),
        D::field<[](const T&) { return kLaunchRuntimeCutoffNs; }>(
            "cpu_duration_cutoff_us", Unit::kMicrosecondsFromNs, "HTA's call-duration cutoff"),
        D::field<[](const T&) { return kLaunchDelayCutoffNs; }>(
            "launch_delay_cutoff_us", Unit::kMicrosecondsFromNs, "HTA's launch-delay cutoff"),
        D::field<[](const T& r) { return LaunchClasses{&r}; }>("classes", Unit::kNone,
                                                               "statistics per launch class"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
