// The figures of the idle-time analysis (idle_time.h).
#pragma once

#include "stepscope/analysis/idle_time.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

// One cause's part of a stream's idle time.
struct IdleCauseFigures {
  std::int64_t idle_ns = 0;
  std::int64_t gaps = 0;
  double share = 0;
};

template <>
struct Fields<IdleCauseFigures> {
  static constexpr std::string_view kName = "IdleCause";
  static std::span<const Field> list() {
    using T = IdleCauseFigures;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::idle_ns>("idle_us", Unit::kMicrosecondsFromNs, "idle time of this cause"),
        D::field<&T::gaps>("gaps", Unit::kCount, "gaps of this cause"),
        D::field<&T::share>("share", Unit::kShare, "of the idle time between activities"),
    };
    return k;
  }
};

template <IdleCause C>
IdleCauseFigures idle_cause_figures(const StreamIdle& stream) {
  return {stream[C].ns, stream[C].gaps, stream.share(C)};
}

template <>
struct Fields<StreamIdle> {
  static constexpr std::string_view kName = "StreamIdle";
  static std::span<const Field> list() {
    using T = StreamIdle;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::device>("device", Unit::kNone, "device id"),
        D::field<&T::stream>("stream", Unit::kNone, "stream id"),
        D::field<&T::activities>("activities", Unit::kCount, "activities overlapping W"),
        D::field<&T::idle_between_ns>("idle_between_activities_us", Unit::kMicrosecondsFromNs,
                                      "idle between the stream's activities"),
        D::field<&idle_cause_figures<IdleCause::kHostWait>>(
            std::string(to_string(IdleCause::kHostWait)), Unit::kNone,
            "the next launch came after the previous activity ended"),
        D::field<&idle_cause_figures<IdleCause::kKernelWait>>(
            std::string(to_string(IdleCause::kKernelWait)), Unit::kNone,
            "a short dependency between kernels (gap below the threshold)"),
        D::field<&idle_cause_figures<IdleCause::kOther>>(std::string(to_string(IdleCause::kOther)),
                                                         Unit::kNone, "any other gap"),
        D::field<&idle_cause_figures<IdleCause::kUnlinked>>(
            std::string(to_string(IdleCause::kUnlinked)), Unit::kNone,
            "the next activity's launch call is not in the trace"),
        D::field<&T::leading_idle_ns>("leading_idle_us", Unit::kMicrosecondsFromNs,
                                      "window start to the stream's first activity"),
        D::field<&T::trailing_idle_ns>("trailing_idle_us", Unit::kMicrosecondsFromNs,
                                       "last activity's end to the window end"),
    };
    return k;
  }
};

template <>
struct Fields<IdleTimeResult> {
  static constexpr std::string_view kName = "IdleTime";
  static std::span<const Field> list() {
    using T = IdleTimeResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without GPU activity"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::kernel_wait_threshold_ns>("kernel_wait_threshold_us",
                                               Unit::kMicrosecondsFromNs,
                                               "gaps shorter than this are kernel_wait"),
        D::field<&T::streams>("streams", Unit::kNone, "by device, then stream"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
