// The figures of a rank's diagnosis (diagnose.h): the verdict, its findings, the evidence each
// rests on and the user's code behind it.
#pragma once

#include <optional>
#include <string_view>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<EventRefs> {
  static constexpr std::string_view kName = "EventRefs";
  static std::span<const Field> list() {
    using T = EventRefs;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "the events' name"),
        D::field<&T::count>("count", Unit::kCount, "how many of them the figure rests on"),
        D::field<&T::first_start_ns>("first_start_us", Unit::kMicrosecondsFromNs,
                                     "trace time the first of them starts"),
        D::field<&T::last_end_ns>("last_end_us", Unit::kMicrosecondsFromNs,
                                  "trace time the last of them ends"),
        D::field<&T::steps>("steps", Unit::kNone, "the step numbers they sit in"),
    };
    return k;
  }
};

template <>
struct Fields<Evidence> {
  static constexpr std::string_view kName = "Evidence";
  static std::span<const Field> list() {
    using T = Evidence;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::label>("label", Unit::kNone, "what the figure is"),
        D::field<&T::value>("value", Unit::kNone, "the figure, in `unit`"),
        D::field<&T::unit>("unit", Unit::kNone,
                           "its unit: `ms/step`, `%`, `calls/step`, `count`, `x`..."),
        D::field<&T::events>("events", Unit::kNone, "the events the figure rests on"),
    };
    return k;
  }
};

template <>
struct Fields<ExpectedGain> {
  static constexpr std::string_view kName = "ExpectedGain";
  static std::span<const Field> list() {
    using T = ExpectedGain;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::bound_ns>("bound_us_per_step", Unit::kMicrosecondsFromNs,
                               "the most a fix can save per step"),
        D::field<&T::likely_ns>("likely_us_per_step", Unit::kMicrosecondsFromNs,
                                "the likely saving per step"),
        D::field<&T::bound_share>("bound_share_of_step", Unit::kShare, "of the mean step time"),
        D::field<&T::likely_share>("likely_share_of_step", Unit::kShare, "of the mean step time"),
        D::field<&T::method>("method", Unit::kNone, "how the estimate was made, in one line"),
    };
    return k;
  }
};

// A location's parts, null where the trace has none (no Python frame, no nn.Module).
inline std::optional<std::string_view> code_file(const CodeLocation& l) {
  if (l.file.empty()) return std::nullopt;
  return l.file;
}
inline std::optional<std::int64_t> code_line(const CodeLocation& l) {
  if (l.file.empty()) return std::nullopt;
  return l.line;
}
inline std::optional<std::string_view> code_function(const CodeLocation& l) {
  if (l.file.empty()) return std::nullopt;
  return l.function;
}
inline std::optional<std::string_view> code_module_path(const CodeLocation& l) {
  if (l.module_path.empty()) return std::nullopt;
  return l.module_path;
}

template <>
struct Fields<CodeLocation> {
  static constexpr std::string_view kName = "CodeLocation";
  static std::span<const Field> list() {
    using D = Describe<CodeLocation>;
    static const Field k[] = {
        D::field<&code_file>("file", Unit::kNone,
                             "the first frame outside torch, site-packages and the standard "
                             "library, as the tracer writes it"),
        D::field<&code_line>("line", Unit::kNone, "where that function starts"),
        D::field<&code_function>("function", Unit::kNone, "the function"),
        D::field<&code_module_path>("module_path", Unit::kNone,
                                    "the `nn.Module` path around the events"),
    };
    return k;
  }
};

template <>
struct Fields<Finding> {
  static constexpr std::string_view kName = "Finding";
  static std::span<const Field> list() {
    using T = Finding;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::id>("id", Unit::kNone, "the rule, stable (`stepscope rules` lists them)"),
        D::field<&T::title>("title", Unit::kNone, "one line"),
        D::field<&T::severity>("severity", Unit::kNone,
                               "`high` (likely gain >= 20 % of the step), `medium` (>= 5 %), "
                               "`low` (>= 1 %), else `info`"),
        D::field<&T::bottleneck>("bottleneck", Unit::kNone, "what limits the step"),
        D::field<&T::part>("phase", Unit::kNone, "where in the step"),
        D::field<&T::rank>("rank", Unit::kNone, "the rank"),
        D::field<&T::evidence>("evidence", Unit::kNone, "the figures the finding rests on"),
        D::field<&T::fix>("fix", Unit::kNone, "the PyTorch calls or arguments to change"),
        D::field<&T::gain>("expected_gain", Unit::kNone, "the saving per step"),
        D::field<&T::code>("code", Unit::kNone,
                           "the user's code most of the evidence events' time comes from; "
                           "null without Python context"),
    };
    return k;
  }
};

template <>
struct Fields<Diagnosis> {
  static constexpr std::string_view kName = "Diagnosis";
  static std::span<const Field> list() {
    using T = Diagnosis;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::bottleneck>("bottleneck", Unit::kNone,
                                 "what limits the step; `undetermined` without kept steps"),
        D::field<&T::part>("phase", Unit::kNone, "where in the step"),
        D::field<&T::summary>("summary", Unit::kNone, "the answer, in one sentence"),
        D::field<&T::window>("window", Unit::kNone,
                             "which steps the figures are per, when not profiler steps")
            .when<[](const T& d) { return !d.window.empty(); }>(),
        D::field<&T::limited_by>("limited_by", Unit::kNone,
                                 "for a healthy trace: what limits it now")
            .when<[](const T& d) { return !d.limited_by.empty(); }>(),
        D::field<&T::dominant_operations>("dominant_operations", Unit::kNone,
                                          "the op, kernel or call names the top finding rests on"),
        D::field<&T::findings>("findings", Unit::kNone, "ranked by likely saving, largest first"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
