// The figures of the GPU temporal breakdown (gpu_temporal.h).
#pragma once

#include "stepscope/analysis/gpu_temporal.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<StepOverlap> {
  static constexpr std::string_view kName = "StepOverlap";
  static std::span<const Field> list() {
    using T = StepOverlap;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::step_number>("number", Unit::kNone, "the step's number"),
        D::field<&T::communication_ns>("communication_us", Unit::kMicrosecondsFromNs,
                                       "|U(comm) ∩ step|"),
        D::field<&T::exposed_communication_ns>(
            "exposed_communication_us", Unit::kMicrosecondsFromNs, "|U(comm) ∩ step − U(comp)|"),
        D::field<&T::overlap_share>("overlap_share", Unit::kShare,
                                    "|comp ∩ comm| / |comm|; null without communication"),
    };
    return k;
  }
};

template <>
struct Fields<DeviceTemporal> {
  static constexpr std::string_view kName = "DeviceTemporal";
  static std::span<const Field> list() {
    using T = DeviceTemporal;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::device>("device", Unit::kNone, "device id"),
        D::field<&T::window_ns>("window_us", Unit::kMicrosecondsFromNs, "|W|"),
        D::field<&T::busy_ns>("busy_us", Unit::kMicrosecondsFromNs,
                              "|U(kernels, memcpy, memset) ∩ W|"),
        D::field<&T::idle_ns>("idle_us", Unit::kMicrosecondsFromNs, "window − busy"),
        D::field<&T::compute_ns>("compute_us", Unit::kMicrosecondsFromNs, "|U(computation) ∩ W|"),
        D::field<&T::non_compute_ns>("non_compute_us", Unit::kMicrosecondsFromNs, "busy − compute"),
        D::field<&T::communication_ns>("communication_us", Unit::kMicrosecondsFromNs,
                                       "|U(comm) ∩ W|"),
        D::field<&T::communication_only_ns>("communication_only_us", Unit::kMicrosecondsFromNs,
                                            "|U(comm) ∩ W − U(comp)|: exposed communication"),
        D::field<&T::memory_ns>("memory_us", Unit::kMicrosecondsFromNs, "|U(mem) ∩ W|"),
        D::field<&T::memory_only_ns>("memory_only_us", Unit::kMicrosecondsFromNs,
                                     "|U(mem) ∩ W − U(comp) − U(comm)|"),
        D::field<[](const T& d) { return d.share(d.idle_ns); }>("idle_share", Unit::kShare,
                                                                "idle / window"),
        D::field<[](const T& d) { return d.share(d.compute_ns); }>("compute_share", Unit::kShare,
                                                                   "compute / window"),
        D::field<[](const T& d) { return d.share(d.non_compute_ns); }>(
            "non_compute_share", Unit::kShare, "non-compute / window"),
        D::field<&T::overlap_ns>("comp_comm_overlap_us", Unit::kMicrosecondsFromNs,
                                 "|U(comp) ∩ U(comm) ∩ W|"),
        D::field<&T::overlap_share>("comp_comm_overlap_share", Unit::kShare,
                                    "|comp ∩ comm| / |comm|; null without communication"),
        D::field<&T::timeline_span_ns>("timeline_span_us", Unit::kMicrosecondsFromNs,
                                       "TraceLens-style: first to last activity inside W"),
        D::field<&T::timeline_idle_ns>("timeline_idle_us", Unit::kMicrosecondsFromNs,
                                       "timeline span − compute − exposed communication − "
                                       "exposed memory"),
        D::field<&T::activities>("activities", Unit::kCount, "activities overlapping W"),
        D::field<&T::outside_window_activities>("outside_window_activities", Unit::kCount,
                                                "activities (partly) outside W"),
        D::field<&T::outside_window_ns>("outside_window_us", Unit::kMicrosecondsFromNs,
                                        "their time outside W"),
        D::field<&T::steps>("steps", Unit::kNone, "this device, per kept step"),
    };
    return k;
  }
};

template <>
struct Fields<GpuTemporalResult> {
  static constexpr std::string_view kName = "GpuTemporal";
  static std::span<const Field> list() {
    using T = GpuTemporalResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without GPU activity"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::devices>("devices", Unit::kNone, "sorted by device id"),
        D::field<&T::steps>("steps", Unit::kNone, "all devices of the rank, per kept step"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
