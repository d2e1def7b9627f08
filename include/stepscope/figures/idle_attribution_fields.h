// The figures of the idle attribution (idle_attribution.h).
#pragma once

#include <vector>

#include "stepscope/analysis/idle_attribution.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

// One cause's idle, per kept step.
struct IdleOwnerRow {
  std::string cause;
  std::int64_t per_step_ns = 0;
  double share_of_step = 0;
};

template <>
struct Fields<IdleOwnerRow> {
  static constexpr std::string_view kName = "IdleOwner";
  static std::span<const Field> list() {
    using T = IdleOwnerRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::cause>("cause", Unit::kNone,
                            "`data_loading`, `host_device_sync`, `launch` or `other_host`, in "
                            "the order they claim idle"),
        D::field<&T::per_step_ns>("us_per_step", Unit::kMicrosecondsFromNs,
                                  "GPU idle this cause owns, mean per kept step"),
        D::field<&T::share_of_step>("share_of_step", Unit::kShare, "of the mean kept step"),
    };
    return k;
  }
};

[[nodiscard]] inline std::vector<IdleOwnerRow> idle_cause_rows(const IdleAttributionResult& r) {
  std::vector<IdleOwnerRow> rows;
  const double step =
      r.steps > 0 ? static_cast<double>(r.step_ns) / static_cast<double>(r.steps) : 0.0;
  for (std::size_t c = 0; c < kIdleOwnerCount; ++c) {
    const auto cause = static_cast<IdleOwner>(c);
    const std::int64_t ns = r.per_step_ns(cause);
    rows.push_back(
        {std::string(to_string(cause)), ns, step > 0 ? static_cast<double>(ns) / step : 0.0});
  }
  return rows;
}

template <>
struct Fields<IdleAttributionResult> {
  static constexpr std::string_view kName = "IdleAttribution";
  static std::span<const Field> list() {
    using T = IdleAttributionResult;
    using D = Describe<T>;
    constexpr auto measured = [](const T& r) { return r.applicable; };
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone,
                                 "false without GPU activity or kept steps"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::steps>("steps", Unit::kCount, "kept steps measured").when<measured>(),
        D::field<[](const T& r) {
          return (r.steps > 0) ? (r.idle_ns / r.steps) : std::int64_t{0};
        }>("idle_us_per_step", Unit::kMicrosecondsFromNs,
           "GPU idle (all devices merged) inside the kept steps, mean per step")
            .when<measured>(),
        D::field<[](const T& r) { return idle_cause_rows(r); }>(
            "causes", Unit::kNone, "the idle each cause owns; the rows add up to the idle")
            .when<measured>(),
    };
    return k;
  }
};

}  // namespace stepscope::figures
