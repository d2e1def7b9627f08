// The figures of the comparison of two runs (diff.h): the document of `stepscope diff --json`.
// Figures per step are per kept step of their own run, averaged over the run's ranks. Some
// objects of the document group members of DiffResult (a list and its total before the `--top`
// cut); they are the small views below.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "stepscope/diff.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<RunSide> {
  static constexpr std::string_view kName = "RunSide";
  static std::span<const Field> list() {
    using T = RunSide;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::path>("path", Unit::kNone, "the trace file or folder"),
        D::field<&T::ranks>("ranks", Unit::kNone, "its ranks"),
        D::field<&T::bottlenecks>("bottlenecks", Unit::kNone, "each rank's bottleneck"),
        D::field<&T::kept_steps>("kept_steps", Unit::kCount, "the smallest count over ranks"),
    };
    return k;
  }
};

template <>
struct Fields<ConditionChange> {
  static constexpr std::string_view kName = "ConditionChange";
  static std::span<const Field> list() {
    using T = ConditionChange;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::condition>("condition", Unit::kNone,
                                "`device`, `devices per rank`, `world size`, `precision` or "
                                "`batch shape`"),
        D::field<&T::before>("before", Unit::kNone, "in the before run, in words"),
        D::field<&T::after>("after", Unit::kNone, "in the after run"),
        D::field<&T::source>("source", Unit::kNone, "where in the traces it was read"),
    };
    return k;
  }
};

// One side's step-time sample with its statistics (kept in StepComparison).
struct StepSampleFigures {
  const StepSample& sample;
  double mean_ns = 0;
  double median_ns = 0;
};

inline std::size_t sample_steps(const StepSampleFigures& s) { return s.sample.durations_ns.size(); }
inline std::size_t sample_ranks(const StepSampleFigures& s) { return s.sample.ranks; }
inline std::string_view sample_source(const StepSampleFigures& s) { return s.sample.source; }
inline std::span<const std::int64_t> sample_durations(const StepSampleFigures& s) {
  return s.sample.durations_ns;
}

template <>
struct Fields<StepSampleFigures> {
  static constexpr std::string_view kName = "StepSample";
  static std::span<const Field> list() {
    using T = StepSampleFigures;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&sample_steps>("steps", Unit::kCount, "steps in the sample"),
        D::field<&sample_ranks>("ranks", Unit::kCount, "ranks of the run"),
        D::field<&sample_source>("sample", Unit::kNone, "how the sample was formed"),
        D::field<&T::mean_ns>("mean_ms", Unit::kMillisecondsFromNs, "mean step time"),
        D::field<&T::median_ns>("median_ms", Unit::kMillisecondsFromNs, "median step time"),
        D::field<&sample_durations>("step_ms", Unit::kMillisecondsFromNs,
                                    "the sample: per step number kept on every rank, the slowest "
                                    "rank's duration (device-rebased on GPU traces)"),
    };
    return k;
  }
};

inline bool determined(const StepComparison& s) { return s.verdict != Verdict::kUndetermined; }
inline std::string_view statistic(const StepComparison&) {
  return "bootstrap of the ratio of mean step times after / before, percentile interval";
}
inline StepSampleFigures sample_before(const StepComparison& s) {
  return {s.before, s.before_mean_ns, s.before_median_ns};
}
inline StepSampleFigures sample_after(const StepComparison& s) {
  return {s.after, s.after_mean_ns, s.after_median_ns};
}
inline double change_percent(const StepComparison& s) { return s.change_share * 100; }
inline std::optional<double> ratio(const StepComparison& s) {
  if (!determined(s)) return std::nullopt;
  return s.ratio;
}
inline std::optional<std::array<double, 2>> ratio_interval(const StepComparison& s) {
  if (!determined(s)) return std::nullopt;
  return std::array<double, 2>{s.ratio_low, s.ratio_high};
}
inline std::array<double, 2> change_percent_interval(const StepComparison& s) {
  return {(s.ratio_low - 1) * 100, (s.ratio_high - 1) * 100};
}

template <>
struct Fields<StepComparison> {
  static constexpr std::string_view kName = "StepComparison";
  static std::span<const Field> list() {
    using T = StepComparison;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::verdict>("verdict", Unit::kNone,
                              "`faster`, `slower`, `no significant change`, `undetermined`"),
        D::field<&T::reason>("reason", Unit::kNone,
                             "why undetermined: fewer than 2 steps on a side")
            .when<[](const T& s) { return !s.reason.empty(); }>(),
        D::field<&statistic>("statistic", Unit::kNone, "the statistic, in words"),
        D::field<&T::confidence>("confidence", Unit::kShare, "of the interval"),
        D::field<&T::resamples>("resamples", Unit::kCount, "bootstrap resamples"),
        D::field<&T::seed>("seed", Unit::kNone, "the bootstrap's seed"),
        D::field<&sample_before>("before", Unit::kNone, "the before run's sample"),
        D::field<&sample_after>("after", Unit::kNone, "the after run's sample"),
        D::field<&T::change_ns>("change_ms", Unit::kMillisecondsFromNs, "after mean - before mean"),
        D::field<&change_percent>("change_percent", Unit::kPercent, "of the before mean"),
        D::field<&ratio>("ratio", Unit::kNone, "after mean / before mean; null when undetermined"),
        D::field<&ratio_interval>("ratio_ci", Unit::kNone,
                                  "its bootstrap percentile interval; null when undetermined"),
        D::field<&change_percent_interval>("change_percent_ci", Unit::kPercent,
                                           "the interval as change of the before mean")
            .when<&determined>(),
    };
    return k;
  }
};

inline double phase_change(const PhaseChange& p) { return p.after_ns - p.before_ns; }

template <>
struct Fields<PhaseChange> {
  static constexpr std::string_view kName = "PhaseChange";
  static std::span<const Field> list() {
    using T = PhaseChange;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::phase>("phase", Unit::kNone,
                            "forward, backward, optimizer, data_loading, other"),
        D::field<&T::before_ns>("before_ms_per_step", Unit::kMillisecondsFromNs,
                                "mean host time per step, before"),
        D::field<&T::after_ns>("after_ms_per_step", Unit::kMillisecondsFromNs, "after"),
        D::field<&phase_change>("change_ms_per_step", Unit::kMillisecondsFromNs, "after - before"),
    };
    return k;
  }
};

struct DiffPhases {
  bool applicable = false;
  std::span<const PhaseChange> rows;
};

template <>
struct Fields<DiffPhases> {
  static constexpr std::string_view kName = "DiffPhases";
  static std::span<const Field> list() {
    using T = DiffPhases;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone,
                                 "false when a side has no phase markers on any rank"),
        D::field<&T::rows>("rows", Unit::kNone, "one per phase"),
    };
    return k;
  }
};

template <>
struct Fields<OpChange> {
  static constexpr std::string_view kName = "OpChange";
  static std::span<const Field> list() {
    using T = OpChange;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "the op"),
        D::field<&T::before_self_cpu_ns>("before_self_cpu_ms_per_step", Unit::kMillisecondsFromNs,
                                         "self CPU time per step, before (0 when absent)"),
        D::field<&T::after_self_cpu_ns>("after_self_cpu_ms_per_step", Unit::kMillisecondsFromNs,
                                        "after"),
        D::field<&T::before_self_device_ns>("before_self_device_ms_per_step",
                                            Unit::kMillisecondsFromNs,
                                            "self device time per step, before"),
        D::field<&T::after_self_device_ns>("after_self_device_ms_per_step",
                                           Unit::kMillisecondsFromNs, "after"),
        D::field<&T::before_calls>("before_calls_per_step", Unit::kCount, "calls per step, before"),
        D::field<&T::after_calls>("after_calls_per_step", Unit::kCount, "after"),
    };
    return k;
  }
};

// A list cut to `--top`, with the number of rows before the cut.
struct OpChanges {
  std::size_t total = 0;
  std::span<const OpChange> rows;
};

template <>
struct Fields<OpChanges> {
  static constexpr std::string_view kName = "OpChanges";
  static std::span<const Field> list() {
    using T = OpChanges;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::total>("total", Unit::kCount, "rows before the `--top` cut"),
        D::field<&T::rows>("rows", Unit::kNone, "the rows kept"),
    };
    return k;
  }
};

struct DiffOps {
  OpChanges changed;
  OpChanges appeared;
  OpChanges vanished;
};

template <>
struct Fields<DiffOps> {
  static constexpr std::string_view kName = "DiffOps";
  static std::span<const Field> list() {
    using T = DiffOps;
    using D = Describe<T>;
    static const Field k[] = {
        D::flatten<&T::changed>(),
        D::field<&T::appeared>("appeared", Unit::kNone,
                               "ops of the after run only, by self CPU + device time after"),
        D::field<&T::vanished>("vanished", Unit::kNone,
                               "ops of the before run only, by that time before"),
    };
    return k;
  }
};

inline double kernel_change(const KernelChange& k) { return k.after_ns - k.before_ns; }

template <>
struct Fields<KernelChange> {
  static constexpr std::string_view kName = "KernelChange";
  static std::span<const Field> list() {
    using T = KernelChange;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "the device activity's name"),
        D::field<&T::kind>("kind", Unit::kNone,
                           "`kernel`, `memcpy`, `memset` or `accelerator_kernel`"),
        D::field<&T::before_ns>("before_ms_per_step", Unit::kMillisecondsFromNs,
                                "device time per step, before"),
        D::field<&T::after_ns>("after_ms_per_step", Unit::kMillisecondsFromNs, "after"),
        D::field<&kernel_change>("change_ms_per_step", Unit::kMillisecondsFromNs, "after - before"),
        D::field<&T::before_count>("before_count_per_step", Unit::kCount,
                                   "instances per step, before"),
        D::field<&T::after_count>("after_count_per_step", Unit::kCount, "after"),
    };
    return k;
  }
};

struct KernelChanges {
  std::size_t total = 0;
  std::span<const KernelChange> rows;
};

template <>
struct Fields<KernelChanges> {
  static constexpr std::string_view kName = "KernelChanges";
  static std::span<const Field> list() {
    using T = KernelChanges;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::total>("total", Unit::kCount, "rows before the `--top` cut"),
        D::field<&T::rows>("rows", Unit::kNone, "the rows kept"),
    };
    return k;
  }
};

struct DiffKernels {
  KernelChanges changed;
  KernelChanges appeared;
  KernelChanges vanished;
};

template <>
struct Fields<DiffKernels> {
  static constexpr std::string_view kName = "DiffKernels";
  static std::span<const Field> list() {
    using T = DiffKernels;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::changed>("changed", Unit::kNone, "names on both sides, by |change of time|"),
        D::field<&T::appeared>("appeared", Unit::kNone, "after only, by time after"),
        D::field<&T::vanished>("vanished", Unit::kNone, "before only, by time before"),
    };
    return k;
  }
};

template <>
struct Fields<FindingFigure> {
  static constexpr std::string_view kName = "FindingFigure";
  static std::span<const Field> list() {
    using T = FindingFigure;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::label>("label", Unit::kNone, "the finding's headline evidence"),
        D::field<&T::unit>("unit", Unit::kNone, "its unit"),
        D::field<&T::before>("before", Unit::kNone, "its value in the before run")
            .when<[](const T& f) { return f.before.has_value(); }>(),
        D::field<&T::after>("after", Unit::kNone,
                            "in the after run, when its finding measures the same label and unit")
            .when<[](const T& f) { return f.after.has_value(); }>(),
    };
    return k;
  }
};

template <>
struct Fields<FindingChange> {
  static constexpr std::string_view kName = "FindingChange";
  static std::span<const Field> list() {
    using T = FindingChange;
    using D = Describe<T>;
    constexpr auto before = [](const T& f) { return !f.severity_before.empty(); };
    constexpr auto after = [](const T& f) { return !f.severity_after.empty(); };
    static const Field k[] = {
        D::field<&T::id>("id", Unit::kNone, "the rule"),
        D::field<&T::title>("title", Unit::kNone, "one line"),
        D::field<&T::rank>("rank", Unit::kNone,
                           "the before run's rank, the after run's for introduced findings"),
        D::field<&T::severity_before>("severity_before", Unit::kNone, "in the before run")
            .when<before>(),
        D::field<&T::likely_gain_before_ns>("likely_gain_before_us_per_step",
                                            Unit::kMicrosecondsFromNs, "in the before run")
            .when<before>(),
        D::field<&T::owned_before_ns>("owned_before_ms_per_step", Unit::kMillisecondsFromNs,
                                      "the time the finding accounts for (its gain's bound), "
                                      "in the before run")
            .when<before>(),
        D::field<&T::severity_after>("severity_after", Unit::kNone, "in the after run")
            .when<after>(),
        D::field<&T::likely_gain_after_ns>("likely_gain_after_us_per_step",
                                           Unit::kMicrosecondsFromNs, "in the after run")
            .when<after>(),
        D::field<&T::owned_after_ns>("owned_after_ms_per_step", Unit::kMillisecondsFromNs,
                                     "in the after run")
            .when<after>(),
        D::field<&T::figure>("figure", Unit::kNone,
                             "the headline evidence before -> after; absent without evidence")
            .when<[](const T& f) { return !f.figure.label.empty(); }>(),
    };
    return k;
  }
};

// The descriptions of the lists below state the shares of diff.h in words.
static_assert(kFindingResolvedShare == 0.10 && kFindingImprovedShare == 0.75,
              "update the descriptions of DiffFindings");

struct DiffFindings {
  std::span<const FindingChange> resolved;
  std::span<const FindingChange> improved;
  std::span<const FindingChange> introduced;
  std::span<const FindingChange> persisting;
};

template <>
struct Fields<DiffFindings> {
  static constexpr std::string_view kName = "DiffFindings";
  static std::span<const Field> list() {
    using T = DiffFindings;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::resolved>("resolved", Unit::kNone,
                               "findings of the before run that the after run no longer has, or "
                               "whose owned time fell below 10 % of the before run's"),
        D::field<&T::improved>("improved", Unit::kNone,
                               "findings of both runs whose owned time fell to 75 % or less of "
                               "the before run's, but not below 10 %"),
        D::field<&T::introduced>("introduced", Unit::kNone, "findings of the after run only"),
        D::field<&T::persisting>("persisting", Unit::kNone,
                                 "findings of both runs whose owned time stayed above 75 % of the "
                                 "before run's (or that own no time)"),
    };
    return k;
  }
};

inline std::array<double, 2> measured_interval(const Calibration& c) {
  return {c.measured_low_ns, c.measured_high_ns};
}

template <>
struct Fields<Calibration> {
  static constexpr std::string_view kName = "Calibration";
  static std::span<const Field> list() {
    using T = Calibration;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::id>("id", Unit::kNone, "the resolved finding"),
        D::field<&T::rank>("rank", Unit::kNone, "its rank"),
        D::field<&T::predicted_likely_ns>("predicted_likely_ms_per_step", Unit::kMillisecondsFromNs,
                                          "the likely gain the before run's diagnosis said"),
        D::field<&T::predicted_bound_ns>("predicted_bound_ms_per_step", Unit::kMillisecondsFromNs,
                                         "the bound it said"),
        D::field<&T::measured_ns>("measured_ms_per_step", Unit::kMillisecondsFromNs,
                                  "before mean - after mean step time (> 0: faster)"),
        D::field<&measured_interval>("measured_ms_per_step_ci", Unit::kMillisecondsFromNs,
                                     "from the ratio's interval"),
        D::field<&T::measured_over_predicted>("measured_over_predicted", Unit::kNone,
                                              "measured / predicted likely; only when the run "
                                              "got faster")
            .when<[](const T& c) { return c.measured_over_predicted.has_value(); }>(),
        D::field<&T::resolved_together>("resolved_together", Unit::kCount,
                                        "findings resolved at once share the measured change"),
    };
    return k;
  }
};

inline DiffPhases diff_phases(const DiffResult& r) { return {r.phases_applicable, r.phases}; }
inline DiffOps diff_ops(const DiffResult& r) {
  return {{r.ops_total, r.ops},
          {r.ops_appeared_total, r.ops_appeared},
          {r.ops_vanished_total, r.ops_vanished}};
}
inline DiffKernels diff_kernels(const DiffResult& r) {
  return {{r.kernels_total, r.kernels},
          {r.kernels_appeared_total, r.kernels_appeared},
          {r.kernels_vanished_total, r.kernels_vanished}};
}
inline DiffFindings diff_findings(const DiffResult& r) {
  return {r.findings_resolved, r.findings_improved, r.findings_introduced, r.findings_persisting};
}

// The document's figures; the schema header is written around them (render_diff_json).
template <>
struct Fields<DiffResult> {
  static constexpr std::string_view kName = "Diff";
  static std::span<const Field> list() {
    using T = DiffResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::before>("before", Unit::kNone, "the before run"),
        D::field<&T::after>("after", Unit::kNone, "the after run"),
        D::field<&T::unlike_conditions>("not_like_for_like", Unit::kNone,
                                        "conditions in which the runs differ (device, devices per "
                                        "rank, world size, precision, batch shape); empty when "
                                        "alike as far as the traces tell"),
        D::field<&T::steps>("step_time", Unit::kNone, "the step times compared"),
        D::field<&diff_phases>("phases", Unit::kNone, "mean host time per phase"),
        D::field<&diff_ops>("ops", Unit::kNone,
                            "ops on both sides, the `--top` with the largest change of self CPU "
                            "or self device time (`ProfilerStep#N` left out)"),
        D::field<&diff_kernels>("kernels", Unit::kNone,
                                "kernels, memcpy and memset starting inside the analysis window"),
        D::field<&diff_findings>("findings", Unit::kNone,
                                 "matched by (id, rank) when both runs have the same ranks, else "
                                 "by id"),
        D::field<&T::calibration>("calibration", Unit::kNone,
                                  "per resolved finding that predicted a saving, when the verdict "
                                  "is not undetermined and the runs are like for like"),
        D::field<&T::notes>("notes", Unit::kNone, "what the reader should know"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
