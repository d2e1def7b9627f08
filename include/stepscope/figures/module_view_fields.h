// The figures of the module view (module_view.h): time per nn.Module path.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "stepscope/analysis/module_view.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<ModuleRow> {
  static constexpr std::string_view kName = "ModuleRow";
  static std::span<const Field> list() {
    using T = ModuleRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::path>("path", Unit::kNone, "`Net_0/Block_1/Linear_0`"),
        D::field<&T::name>("name", Unit::kNone,
                           "the class and PyTorch's per-class instance number"),
        D::field<&T::depth>("depth", Unit::kNone, "0 for the outermost modules"),
        D::field<&T::parent>("parent", Unit::kNone,
                             "row index of the enclosing module, -1 at the top"),
        D::field<&T::calls>("calls", Unit::kCount, "calls in the scope"),
        D::field<&T::host_total_ns>("host_total_us", Unit::kMicrosecondsFromNs,
                                    "sum of the module's spans"),
        D::field<&T::host_self_ns>("host_self_us", Unit::kMicrosecondsFromNs,
                                   "less the spans of its direct child modules"),
        D::field<&T::device_total_ns>("device_total_us", Unit::kMicrosecondsFromNs,
                                      "sum of the device activity durations of the ops inside "
                                      "(not a union)"),
        D::field<&T::device_self_ns>("device_self_us", Unit::kMicrosecondsFromNs,
                                     "of the ops in no child module"),
    };
    return k;
  }
};

// The scope's bounds (no duration, unlike a Window).
struct ModuleScope {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

template <>
struct Fields<ModuleScope> {
  static constexpr std::string_view kName = "ModuleScope";
  static std::span<const Field> list() {
    using D = Describe<ModuleScope>;
    static const Field k[] = {
        D::field<&ModuleScope::start_ns>("start_us", Unit::kMicrosecondsFromNs, "start"),
        D::field<&ModuleScope::end_ns>("end_us", Unit::kMicrosecondsFromNs, "end"),
    };
    return k;
  }
};

inline std::optional<ModuleScope> module_scope(const ModuleViewResult& r) {
  if (!r.scope) return std::nullopt;
  return ModuleScope{r.scope->start, r.scope->end};
}

template <>
struct Fields<ModuleViewResult> {
  static constexpr std::string_view kName = "Modules";
  static std::span<const Field> list() {
    using T = ModuleViewResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone,
                                 "false without `nn.Module` frames or annotations"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone,
                                            "how to record them")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::source>("source", Unit::kNone,
                             "`python_function frames (with_stack)` or `nn.Module annotations`"),
        D::field<&module_scope>("scope", Unit::kNone,
                                "the kept steps' host span; null: the whole trace"),
        D::field<&T::kept_steps>("kept_steps", Unit::kCount,
                                 "divide totals by this for per-step figures"),
        D::field<&T::calls_outside_scope>("calls_outside_scope", Unit::kCount,
                                          "module calls starting outside the scope"),
        D::field<&T::rows>("rows", Unit::kNone,
                           "in tree order: depth first, siblings by host time"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
