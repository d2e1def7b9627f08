// The figures of the critical path and the what-if (what_if.h).
#pragma once

#include "stepscope/analysis/what_if.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<PathClassTime> {
  static constexpr std::string_view kName = "PathClassTime";
  static std::span<const Field> list() {
    using T = PathClassTime;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::path_class>("class", Unit::kNone,
                                 "host_ops, data_loading, launch_calls, launch_latency, sync, "
                                 "compute, communication or memory"),
        D::field<&T::ns_per_step>("us_per_step", Unit::kMicrosecondsFromNsRounded,
                                  "time on the critical path per kept step"),
        D::field<&T::share>("share", Unit::kShare, "of the modelled step"),
    };
    return k;
  }
};

template <>
struct Fields<PathEvent> {
  static constexpr std::string_view kName = "PathEvent";
  static std::span<const Field> list() {
    using T = PathEvent;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone,
                           "event name; host time between calls is named after the top-level op "
                           "that ran then"),
        D::field<&T::path_class>("class", Unit::kNone, "as in classes"),
        D::field<&T::ns_per_step>("us_per_step", Unit::kMicrosecondsFromNsRounded,
                                  "time on the critical path per kept step"),
        D::field<&T::count>("count", Unit::kCount, "stretches on the path, all kept steps"),
    };
    return k;
  }
};

template <>
struct Fields<CriticalPathResult> {
  static constexpr std::string_view kName = "CriticalPath";
  static std::span<const Field> list() {
    using T = CriticalPathResult;
    using D = Describe<T>;
    constexpr auto applicable = [](const T& r) { return r.applicable; };
    constexpr auto not_applicable = [](const T& r) { return !r.applicable; };
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without kept steps"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<not_applicable>(),
        D::field<&T::steps>("steps", Unit::kCount, "kept steps replayed"),
        D::field<&T::measured_step_ns>("measured_step_us", Unit::kMicrosecondsFromNsRounded,
                                       "mean kept step as the trace shows it")
            .when<applicable>(),
        D::field<&T::modelled_step_ns>("modelled_step_us", Unit::kMicrosecondsFromNsRounded,
                                       "the same steps replayed through the graph: the path's "
                                       "length, and how well the graph explains the step")
            .when<applicable>(),
        D::field<&T::classes>("classes", Unit::kNone, "time on the path by class, longest first"),
        D::field<&T::events>("events", Unit::kNone, "the longest events on the path (top N)"),
        D::field<&T::unlinked_activities>("unlinked_activities", Unit::kCount,
                                          "device activities in the steps with no launch call"),
        D::field<&T::cross_stream_waits>("cross_stream_waits", Unit::kCount,
                                         "cudaStreamWaitEvent calls (not modelled)"),
        D::field<&T::bounds>("bounds", Unit::kNone,
                             "edges the trace lacks and how they bound the answer"),
    };
    return k;
  }
};

template <>
struct Fields<WhatIfResult> {
  static constexpr std::string_view kName = "WhatIf";
  static std::span<const Field> list() {
    using T = WhatIfResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::change>("change", Unit::kNone, "what was simulated"),
        D::field<[](const T& r) { return r.before.measured_step_ns; }>(
            "measured_step_us", Unit::kMicrosecondsFromNsRounded,
            "mean kept step as the trace shows it"),
        D::field<&T::predicted_step_ns>("predicted_step_us", Unit::kMicrosecondsFromNsRounded,
                                        "measured step less the modelled saving"),
        D::field<[](const T& r) { return r.saving_ns(); }>(
            "saving_us_per_step", Unit::kMicrosecondsFromNsRounded,
            "modelled step before less after (negative: slower)"),
        D::field<&T::before>("before", Unit::kNone, "critical path of the steps as recorded"),
        D::field<&T::after>("after", Unit::kNone, "critical path of the steps with the change"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
