// The figures of the launch-queue analysis (queue_length.h).
#pragma once

#include "stepscope/analysis/queue_length.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<StreamQueueLength> {
  static constexpr std::string_view kName = "StreamQueueLength";
  static std::span<const Field> list() {
    using T = StreamQueueLength;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::device>("device", Unit::kNone, "device id"),
        D::field<&T::stream>("stream", Unit::kNone, "stream id"),
        D::field<&T::launches>("launches", Unit::kCount,
                               "queue entries whose call starts in W (a graph launch is one "
                               "entry per stream)"),
        D::field<&T::samples>("samples", Unit::kCount, "change points in W"),
        D::field<&T::depth_at_window_start>("depth_at_window_start", Unit::kCount,
                                            "submitted before W, not started by its start"),
        D::field<&T::max_depth>("max_depth", Unit::kCount, "deepest queue over W"),
        D::field<&T::min_depth>("min_depth", Unit::kCount, "below 0 only with clock skew"),
        D::field<&T::time_weighted_mean_depth>("time_weighted_mean_depth", Unit::kCount,
                                               "∫ depth dt / |W|"),
        D::field<&T::time_at_limit_ns>("time_at_limit_us", Unit::kMicrosecondsFromNs,
                                       "time with depth ≥ queue_limit (launch calls block)"),
        D::field<&T::time_at_limit_share>("time_at_limit_share", Unit::kShare, "of |W|"),
    };
    return k;
  }
};

template <>
struct Fields<QueueLengthResult> {
  static constexpr std::string_view kName = "QueueLength";
  static std::span<const Field> list() {
    using T = QueueLengthResult;
    using D = Describe<T>;
    constexpr auto applicable = [](const T& q) { return q.applicable; };
    constexpr auto not_applicable = [](const T& q) { return !q.applicable; };
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without launches in W"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<not_applicable>(),
        D::field<[](const T&) { return kLaunchQueueLimit; }>(
            "queue_limit", Unit::kCount, "CUDA's launch-queue limit per stream (1024)"),
        D::field<[](const T& q) { return q.window.start; }>("window_start_us",
                                                            Unit::kMicrosecondsFromNs, "start of W")
            .when<applicable>(),
        D::field<[](const T& q) { return q.window.end; }>("window_end_us",
                                                          Unit::kMicrosecondsFromNs, "end of W")
            .when<applicable>(),
        D::field<&T::streams>("streams", Unit::kNone, "by device, then stream"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
