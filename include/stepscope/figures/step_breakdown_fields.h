// The figures of the step-time breakdown (step_breakdown.h).
#pragma once

#include <string>
#include <utility>

#include "stepscope/analysis/step_breakdown.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <std::size_t R>
std::int64_t role_ns(const RoleTimes& times) {
  return times.ns[R];
}

template <std::size_t R>
double role_share(const RoleTimes& times) {
  return times.total_ns > 0 ? static_cast<double>(times.ns[R]) / static_cast<double>(times.total_ns)
                            : 0.0;
}

// The roles' shares of the step, keyed by role.
struct RoleShares {
  const RoleTimes* times = nullptr;
};

template <std::size_t R>
double role_share_of(const RoleShares& shares) {
  return role_share<R>(*shares.times);
}

template <>
struct Fields<RoleShares> {
  static constexpr std::string_view kName = "RoleShares";
  static std::span<const Field> list() {
    static const auto k = []<std::size_t... R>(std::index_sequence<R...>) {
      return std::array<Field, sizeof...(R)>{Describe<RoleShares>::field<&role_share_of<R>>(
          std::string(to_string(static_cast<StepRole>(R))), Unit::kShare, "of the step")...};
    }
    (std::make_index_sequence<kStepRoleCount>{});
    return k;
  }
};

template <>
struct Fields<RoleTimes> {
  static constexpr std::string_view kName = "RoleTimes";
  static std::span<const Field> list() {
    using T = RoleTimes;
    using D = Describe<T>;
    // static: usable inside the lambda below without a capture (clang requires one otherwise).
    static constexpr auto native = [](const T&, const Context& c) {
      return c.mode != Mode::kCompatTb;
    };
    static const std::vector<Field> k = [] {
      std::vector<Field> fields;
      [&fields]<std::size_t... R>(std::index_sequence<R...>) {
        (fields.push_back(D::field<&role_ns<R>>(
             std::string(to_string(static_cast<StepRole>(R))) + "_us", Unit::kMicrosecondsFromNs,
             "the step time this role took (priority order)")),
         ...);
      }
      (std::make_index_sequence<kStepRoleCount>{});
      fields.push_back(D::field<&T::runtime_sync_ns>("runtime_sync_us", Unit::kMicrosecondsFromNs,
                                                     "blocking runtime calls (native)")
                           .when<native>());
      fields.push_back(D::field<&T::runtime_launch_ns>("runtime_launch_us",
                                                       Unit::kMicrosecondsFromNs,
                                                       "the other runtime calls (native)")
                           .when<native>());
      fields.push_back(
          D::field<&T::total_ns>("step_us", Unit::kMicrosecondsFromNs, "the step length"));
      fields.push_back(D::field<[](const T& t) { return RoleShares{&t}; }>(
          "shares", Unit::kNone, "each role's share of the step"));
      return fields;
    }();
    return k;
  }
};

template <>
struct Fields<StepBreakdownRow> {
  static constexpr std::string_view kName = "StepBreakdownRow";
  static std::span<const Field> list() {
    using T = StepBreakdownRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::step_number>("number", Unit::kNone, "the step's number"),
        D::field<&T::start_ns>("start_us", Unit::kMicrosecondsFromNs, "step start"),
        D::field<&T::end_ns>("end_us", Unit::kMicrosecondsFromNs, "step end"),
        D::field<&T::roles>("roles", Unit::kNone, "time per role"),
    };
    return k;
  }
};

template <>
struct Fields<StepBreakdownResult> {
  static constexpr std::string_view kName = "StepBreakdown";
  static void enter(const StepBreakdownResult& r, Context& c) { c.mode = r.mode; }
  static std::span<const Field> list() {
    using T = StepBreakdownResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::mode>("mode", Unit::kNone, "`native` or `compat-tb`"),
        D::field<&T::applicable>("applicable", Unit::kNone, "false without kept steps"),
        D::field<&T::not_applicable_reason>("reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<[](const T& r) { return static_cast<std::uint64_t>(r.steps.size()); }>(
            "kept_steps", Unit::kCount, "kept steps"),
        D::field<[](const T& r) -> const RoleTimes* { return r.applicable ? &r.mean : nullptr; }>(
            "mean_per_step", Unit::kNone, "the mean step; null when not applicable"),
        D::field<&T::steps>("steps", Unit::kNone, "per kept step"),
        D::field<&T::quirks>("quirks", Unit::kNone, "compat-tb: the tb_plugin artefacts"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
