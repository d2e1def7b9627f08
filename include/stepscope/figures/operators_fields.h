// The figures of the operator table (operators.h).
#pragma once

#include "stepscope/analysis/operators.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<OperatorRow> {
  static constexpr std::string_view kName = "OperatorRow";
  static std::span<const Field> list() {
    using T = OperatorRow;
    using D = Describe<T>;
    constexpr auto by_shape = [](const T&, const Context& c) { return c.grouped_by_input_shape; };
    constexpr Unit us = Unit::kMicrosecondsFromNs;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "op name"),
        D::field<&T::input_dims>("input_dims", Unit::kNone, "raw JSON as the trace writes it")
            .when<by_shape>(),
        D::field<&T::input_types>("input_types", Unit::kNone, "raw JSON as the trace writes it")
            .when<by_shape>(),
        D::field<[](const T& r) {
          return r.unattributed ? std::string_view("unattributed") : to_string(r.event_class);
        }>("class", Unit::kNone,
           "`op`, `annotation`, `runtime`, `driver`, or `unattributed` (device activity no op "
           "launched)"),
        D::field<&T::calls>("calls", Unit::kCount, "calls (unattributed row: its activities)"),
        D::field<&T::self_cpu_ns>("self_cpu_us", us, "CPU time less children"),
        D::field<&T::total_cpu_ns>("total_cpu_us", us, "CPU time"),
        D::field<&T::self_device_ns>("self_device_us", us,
                                     "device time of the op's own activities (sum)"),
        D::field<&T::total_device_ns>("total_device_us", us, "device time with children's"),
        D::field<&T::avg_self_cpu_ns>("avg_self_cpu_us", us, "per call"),
        D::field<&T::avg_total_cpu_ns>("avg_total_cpu_us", us, "per call"),
        D::field<&T::avg_self_device_ns>("avg_self_device_us", us, "per call"),
        D::field<&T::avg_total_device_ns>("avg_total_device_us", us, "per call"),
        D::field<&T::device_activities>("device_activities", Unit::kCount,
                                        "activities attributed to the op itself"),
        D::field<&T::self_cpu_share>("self_cpu_share", Unit::kShare, "of all rows' self CPU time"),
        D::field<&T::self_device_share>("self_device_share", Unit::kShare, "of device_total_us"),
    };
    return k;
  }
};

template <>
struct Fields<DeviceActivityRow> {
  static constexpr std::string_view kName = "DeviceActivityRow";
  static std::span<const Field> list() {
    using T = DeviceActivityRow;
    using D = Describe<T>;
    constexpr Unit us = Unit::kMicrosecondsFromNs;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "device activity name"),
        D::field<&T::event_class>("class", Unit::kNone, "kernel, memcpy, memset, ..."),
        D::field<&T::count>("count", Unit::kCount, "instances"),
        D::field<&T::device_ns>("device_us", us, "sum of durations"),
        D::field<&T::avg_device_ns>("avg_device_us", us, "per instance"),
        D::field<&T::min_device_ns>("min_device_us", us, "shortest"),
        D::field<&T::max_device_ns>("max_device_us", us, "longest"),
        D::field<&T::unattributed_count>("unattributed_count", Unit::kCount,
                                         "instances no op launched"),
        D::field<&T::device_share>("device_share", Unit::kShare, "of device_total_us"),
    };
    return k;
  }
};

template <>
struct Fields<OperatorsResult> {
  static constexpr std::string_view kName = "Operators";
  static void enter(const OperatorsResult& r, Context& c) {
    c.grouped_by_input_shape = r.grouped_by_input_shape;
  }
  static std::span<const Field> list() {
    using T = OperatorsResult;
    using D = Describe<T>;
    constexpr Unit us = Unit::kMicrosecondsFromNs;
    constexpr auto scoped = [](const T& r) { return r.scope.has_value(); };
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without ops"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::grouped_by_input_shape>("grouped_by_input_shape", Unit::kNone,
                                             "rows per input shape (--group-by-shape)"),
        D::field<[](const T& r) {
          return std::string_view(r.scope ? "ops starting in the step window" : "whole trace");
        }>("scope", Unit::kNone, "which ops are counted"),
        D::field<[](const T& r) { return r.scope->start; }>("scope_start_us", us,
                                                            "start of the scope")
            .when<scoped>(),
        D::field<[](const T& r) { return r.scope->end; }>("scope_end_us", us, "end of the scope")
            .when<scoped>(),
        D::field<&T::ops_outside_scope>("ops_outside_scope", Unit::kCount,
                                        "ops not counted, not dropped silently"),
        D::field<&T::self_cpu_total_ns>("self_cpu_total_us", us, "Σ self CPU time"),
        D::field<&T::device_total_ns>("device_total_us", us,
                                      "attributed + unattributed device time"),
        D::field<&T::attributed_device_ns>("attributed_device_us", us,
                                           "Σ self device time of the op rows"),
        D::field<&T::unattributed_device_ns>("unattributed_device_us", us,
                                             "activities with no op (e.g. NCCL kernels)"),
        D::field<&T::unattributed_activities>("unattributed_activities", Unit::kCount,
                                              "activities with no op"),
        D::field<&T::attributed_device_share>("attributed_device_share", Unit::kShare,
                                              "attributed / device total"),
        D::field<&T::attributed_by_external_id>("attributed_by_external_id", Unit::kCount,
                                                "activities attributed by External id"),
        D::field<&T::attributed_through_launch_call>(
            "attributed_through_launch_call", Unit::kCount,
            "activities attributed through the op enclosing the launch call"),
        D::field<&T::merged_single_children>("merged_single_children", Unit::kCount,
                                             "same-name only children folded into the parent"),
        D::field<&T::rows>("rows", Unit::kNone,
                           "per op (and input shape), by self device then CPU time"),
        D::field<&T::device_rows>("device_rows", Unit::kNone,
                                  "per device-activity name, by device time"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
