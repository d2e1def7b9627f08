// The figures of the steps and step-time analyses (steps.h).
#pragma once

#include "stepscope/analysis/steps.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

[[nodiscard]] constexpr std::string_view window_source_name(StepsResult::WindowSource source) {
  switch (source) {
    case StepsResult::WindowSource::kSteps:
      return "kept_steps";
    case StepsResult::WindowSource::kRepeatedRegion:
      return "repeated_region";
    case StepsResult::WindowSource::kWholeTrace:
      return "whole_trace";
    case StepsResult::WindowSource::kGpuActivitySpan:
      return "gpu_activity_span";
    case StepsResult::WindowSource::kNone:
      return "none";
  }
  return "none";
}

// An interval written with its length.
template <>
struct Fields<Interval> {
  static constexpr std::string_view kName = "Window";
  static std::span<const Field> list() {
    using D = Describe<Interval>;
    static const Field k[] = {
        D::field<&Interval::start>("start_us", Unit::kMicrosecondsFromNs, "start"),
        D::field<&Interval::end>("end_us", Unit::kMicrosecondsFromNs, "end"),
        D::field<&Interval::length>("duration_us", Unit::kMicrosecondsFromNs, "end − start"),
    };
    return k;
  }
};

template <>
struct Fields<Step> {
  static constexpr std::string_view kName = "Step";
  static std::span<const Field> list() {
    using D = Describe<Step>;
    static const Field k[] = {
        D::field<&Step::number>("number", Unit::kNone,
                                "N of the ProfilerStep#N event (inferred steps: 0, 1, ...)"),
        D::field<&Step::status>("status", Unit::kNone,
                                "`kept`, `no_device_activity_after_last_active_step`, "
                                "`incomplete_last_step` or `outside_requested_range`"),
        D::field<&Step::host_start_ns>("host_start_us", Unit::kMicrosecondsFromNs,
                                       "start of the host span"),
        D::field<&Step::host_end_ns>("host_end_us", Unit::kMicrosecondsFromNs,
                                     "end of the host span"),
        D::field<&Step::start_ns>("start_us", Unit::kMicrosecondsFromNs,
                                  "device-rebased start (the host span on CPU-only traces)"),
        D::field<&Step::end_ns>("end_us", Unit::kMicrosecondsFromNs, "device-rebased end"),
        D::field<&Step::duration_ns>("duration_us", Unit::kMicrosecondsFromNs,
                                     "device-rebased duration"),
        D::field<&Step::host_duration_ns>("host_duration_us", Unit::kMicrosecondsFromNs,
                                          "host span duration"),
        D::field<&Step::device_activities>("device_activities", Unit::kCount,
                                           "device activities matched through the step's launch "
                                           "calls"),
        D::field<&Step::outlier>("outlier", Unit::kNone,
                                 "longer than the median of the others + 3 × 1.4826 × their MAD"),
    };
    return k;
  }
};

struct StepsWindow {
  Interval interval;
  StepsResult::WindowSource source;
  std::string region;
};

template <>
struct Fields<StepsWindow> {
  static constexpr std::string_view kName = "StepsWindow";
  static std::span<const Field> list() {
    using D = Describe<StepsWindow>;
    static const Field k[] = {
        D::flatten<&StepsWindow::interval>(),
        D::field<[](const StepsWindow& w) { return window_source_name(w.source); }>(
            "source", Unit::kNone,
            "`kept_steps` (profiler steps), `repeated_region` (no profiler steps: the "
            "repetitions of `region`), `whole_trace` (no steps and no repeated region: one "
            "step over the trace), `gpu_activity_span` or `none`"),
        D::field<&StepsWindow::region>("region", Unit::kNone,
                                       "the repeated region the steps are, for `repeated_region`")
            .when<[](const StepsWindow& w) { return !w.region.empty(); }>(),
    };
    return k;
  }
};

template <>
struct Fields<StepsResult> {
  static constexpr std::string_view kName = "Steps";
  static std::span<const Field> list() {
    using D = Describe<StepsResult>;
    static const Field k[] = {
        D::field<&StepsResult::rebased>("rebased_on_device", Unit::kNone,
                                        "spans are device-rebased (false: host spans of a "
                                        "CPU-only trace)"),
        D::field<[](const StepsResult& s) { return static_cast<std::uint64_t>(s.steps.size()); }>(
            "count", Unit::kCount, "profiler steps found"),
        D::field<[](const StepsResult& s) { return static_cast<std::uint64_t>(s.kept().size()); }>(
            "kept", Unit::kCount, "steps kept for the analysis"),
        D::field<[](const StepsResult& s) -> std::optional<StepsWindow> {
          if (!s.window) return std::nullopt;
          return StepsWindow{*s.window, s.window_source, s.region};
        }>("window", Unit::kNone, "the analysis window W (docs/metrics §0.7); null without one"),
        D::field<&StepsResult::steps>("steps", Unit::kNone, "every step, sorted by host start"),
        D::field<&StepsResult::notes>("notes", Unit::kNone,
                                      "duplicated numbers, nested steps, several threads"),
    };
    return k;
  }
};

template <>
struct Fields<Statistics> {
  static constexpr std::string_view kName = "DurationStatistics";
  static std::span<const Field> list() {
    using D = Describe<Statistics>;
    constexpr auto some = [](const Statistics& s) { return s.count > 0; };
    static const Field k[] = {
        D::field<[](const Statistics& s) { return static_cast<std::uint64_t>(s.count); }>(
            "count", Unit::kCount, "samples"),
        D::field<&Statistics::mean>("mean_us", Unit::kMicrosecondsFromNsRounded, "mean")
            .when<some>(),
        D::field<&Statistics::std>("std_us", Unit::kMicrosecondsFromNsRounded,
                                   "sample standard deviation (n − 1)")
            .when<some>(),
        D::field<&Statistics::min>("min_us", Unit::kMicrosecondsFromNsRounded, "minimum")
            .when<some>(),
        D::field<&Statistics::p50>("p50_us", Unit::kMicrosecondsFromNsRounded,
                                   "median (linear interpolation)")
            .when<some>(),
        D::field<&Statistics::p95>("p95_us", Unit::kMicrosecondsFromNsRounded, "95th percentile")
            .when<some>(),
        D::field<&Statistics::p99>("p99_us", Unit::kMicrosecondsFromNsRounded, "99th percentile")
            .when<some>(),
        D::field<&Statistics::max>("max_us", Unit::kMicrosecondsFromNsRounded, "maximum")
            .when<some>(),
        D::field<&Statistics::cv>("cv", Unit::kNone, "std / mean").when<some>(),
        D::field<&Statistics::few_samples>("few_samples", Unit::kNone,
                                           "n < 20: p95 / p99 interpolate towards the maximum"),
    };
    return k;
  }
};

template <>
struct Fields<StepTimeStats> {
  static constexpr std::string_view kName = "StepTime";
  static std::span<const Field> list() {
    using D = Describe<StepTimeStats>;
    static const Field k[] = {
        D::field<&StepTimeStats::duration_ns>("duration", Unit::kNone,
                                              "kept steps' device-rebased durations"),
        D::field<&StepTimeStats::host_duration_ns>("host_duration", Unit::kNone,
                                                   "kept steps' host spans"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
