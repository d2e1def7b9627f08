// The figures of the phase analysis (phases.h).
#pragma once

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "stepscope/analysis/phases.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

// One phase's times in a step.
struct PhaseFigures {
  std::int64_t host_ns = 0;
  double host_share = 0;
  std::int64_t device_ns = 0;
};

template <>
struct Fields<PhaseFigures> {
  static constexpr std::string_view kName = "PhaseFigures";
  static std::span<const Field> list() {
    using T = PhaseFigures;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::host_ns>("host_us", Unit::kMicrosecondsFromNs,
                              "the step's time covered by the phase's host spans"),
        D::field<&T::host_share>("host_share", Unit::kShare, "of the step"),
        D::field<&T::device_ns>("device_us", Unit::kMicrosecondsFromNs,
                                "device time launched from the phase"),
    };
    return k;
  }
};

template <std::size_t P>
PhaseFigures phase_figures(const PhaseTimes& t) {
  return {t.host_ns[P],
          t.step_ns > 0 ? static_cast<double>(t.host_ns[P]) / static_cast<double>(t.step_ns) : 0.0,
          t.device_ns[P]};
}

template <>
struct Fields<PhaseTimes> {
  static constexpr std::string_view kName = "PhaseTimes";
  static std::span<const Field> list() {
    using D = Describe<PhaseTimes>;
    static const std::vector<Field> k = [] {
      std::vector<Field> fields;
      fields.push_back(
          D::field<&PhaseTimes::step_ns>("step_us", Unit::kMicrosecondsFromNs, "step length"));
      [&fields]<std::size_t... P>(std::index_sequence<P...>) {
        (fields.push_back(D::field<&phase_figures<P>>(std::string(to_string(static_cast<Phase>(P))),
                                                      Unit::kNone, "this phase's times")),
         ...);
      }
      (std::make_index_sequence<kPhaseCount>{});
      return fields;
    }();
    return k;
  }
};

// Marker events found, by phase (other has none).
struct PhaseMarkers {
  const std::array<std::int64_t, kPhaseCount>* markers = nullptr;
};

template <std::size_t P>
std::int64_t phase_markers(const PhaseMarkers& m) {
  return (*m.markers)[P];
}

template <>
struct Fields<PhaseMarkers> {
  static constexpr std::string_view kName = "PhaseMarkers";
  static std::span<const Field> list() {
    static const auto k = []<std::size_t... P>(std::index_sequence<P...>) {
      return std::array<Field, sizeof...(P)>{Describe<PhaseMarkers>::field<&phase_markers<P>>(
          std::string(to_string(static_cast<Phase>(P))), Unit::kCount, "marker events")...};
    }
    (std::make_index_sequence<kPhaseCount - 1>{});
    return k;
  }
};

template <>
struct Fields<StepPhases> {
  static constexpr std::string_view kName = "StepPhases";
  static std::span<const Field> list() {
    using T = StepPhases;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::step_number>("number", Unit::kNone, "the step's number"),
        D::field<&T::forward_inferred>("forward_inferred", Unit::kNone,
                                       "no forward marker: forward inferred"),
        D::field<&T::times>("phases", Unit::kNone, "times per phase"),
    };
    return k;
  }
};

template <>
struct Fields<LabelledTime> {
  static constexpr std::string_view kName = "LabelledTime";
  static std::span<const Field> list() {
    using T = LabelledTime;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "the label as written (prof.phase(name))"),
        D::field<&T::markers>("markers", Unit::kCount, "marker events with this label"),
        D::field<&T::mean_host_ns>("mean_host_us_per_step", Unit::kMicrosecondsFromNs,
                                   "host time its spans cover per kept step"),
    };
    return k;
  }
};

template <>
struct Fields<PhasesResult> {
  static constexpr std::string_view kName = "Phases";
  static std::span<const Field> list() {
    using T = PhasesResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::mode>("mode", Unit::kNone, "the mode that picked the steps"),
        D::field<&T::applicable>("applicable", Unit::kNone, "false without kept steps"),
        D::field<&T::not_applicable_reason>("reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<[](const T& r) { return static_cast<std::uint64_t>(r.steps.size()); }>(
            "kept_steps", Unit::kCount, "kept steps"),
        D::field<[](const T& r) { return PhaseMarkers{&r.markers}; }>(
            "markers", Unit::kNone, "marker events found, by phase"),
        D::field<[](const T& r) -> const PhaseTimes* { return r.applicable ? &r.mean : nullptr; }>(
            "mean_per_step", Unit::kNone, "the mean step; null when not applicable"),
        D::field<&T::steps>("steps", Unit::kNone, "per kept step"),
        D::field<&T::labels>("labels", Unit::kNone,
                             "markers named none of the phases, largest host time first"),
        D::field<&T::notes>("notes", Unit::kNone, "how phases were found"),
        D::field<[](const T&) { return std::vector<std::string>{}; }>(
            "quirks", Unit::kNone, "always empty: no peer defines phases"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
