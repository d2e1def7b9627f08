// The figures of the kernel breakdown (kernel_breakdown.h).
#pragma once

#include "stepscope/analysis/kernel_breakdown.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<OverlapLabel> {
  static constexpr std::string_view kName = "ClassOverlap";
  static std::span<const Field> list() {
    using T = OverlapLabel;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("classes", Unit::kNone,
                           "the classes running together, e.g. `computation+communication`"),
        D::field<&T::ns>("time_us", Unit::kMicrosecondsFromNs,
                         "time during which exactly these classes run"),
        D::field<&T::share>("share", Unit::kShare, "of the union of all activity"),
    };
    return k;
  }
};

template <>
struct Fields<KernelRow> {
  static constexpr std::string_view kName = "KernelRow";
  static std::span<const Field> list() {
    using T = KernelRow;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::name>("name", Unit::kNone, "kernel name"),
        D::field<&T::activity_class>("class", Unit::kNone,
                                     "`computation`, `communication` or `memory`"),
        D::field<&T::count>("count", Unit::kCount, "instances starting in W"),
        D::field<&T::total_ns>("total_us", Unit::kMicrosecondsFromNs, "sum of durations"),
        D::field<&T::mean_ns>("mean_us", Unit::kMicrosecondsFromNsRounded, "mean duration"),
        D::field<&T::min_ns>("min_us", Unit::kMicrosecondsFromNs, "shortest"),
        D::field<&T::max_ns>("max_us", Unit::kMicrosecondsFromNs, "longest"),
        D::field<&T::std_ns>("std_us", Unit::kMicrosecondsFromNsRounded,
                             "sample standard deviation (n − 1)"),
        D::field<&T::share>("share", Unit::kShare, "of the device's total activity time"),
    };
    return k;
  }
};

// A count and time of the kernels after a top N.
struct KernelOthers {
  std::int64_t count = 0;
  std::int64_t ns = 0;
};

template <>
struct Fields<KernelOthers> {
  static constexpr std::string_view kName = "KernelOthers";
  static std::span<const Field> list() {
    using D = Describe<KernelOthers>;
    static const Field k[] = {
        D::field<&KernelOthers::count>("count", Unit::kCount, "instances"),
        D::field<&KernelOthers::ns>("total_us", Unit::kMicrosecondsFromNs, "sum of durations"),
    };
    return k;
  }
};

// The per-class arrays of DeviceKernels, in this order.
struct KernelOthersByClass {
  const DeviceKernels* device = nullptr;
};

template <std::size_t C>
KernelOthers kernel_others_of_class(const KernelOthersByClass& o) {
  return {o.device->others_count_by_class[C], o.device->others_ns_by_class[C]};
}

template <>
struct Fields<KernelOthersByClass> {
  static constexpr std::string_view kName = "KernelOthersByClass";
  static std::span<const Field> list() {
    using D = Describe<KernelOthersByClass>;
    static const Field k[] = {
        D::field<&kernel_others_of_class<0>>(std::string(to_string(ActivityClass::kComputation)),
                                             Unit::kNone, "after the top computation kernels"),
        D::field<&kernel_others_of_class<1>>(std::string(to_string(ActivityClass::kCommunication)),
                                             Unit::kNone, "after the top communication kernels"),
        D::field<&kernel_others_of_class<2>>(std::string(to_string(ActivityClass::kMemory)),
                                             Unit::kNone, "after the top memory activities"),
    };
    return k;
  }
};

template <std::size_t C>
std::span<const KernelRow> top_kernels_of_class(const DeviceKernels& device) {
  return device.top_by_class[C];
}

template <>
struct Fields<DeviceKernels> {
  static constexpr std::string_view kName = "DeviceKernels";
  static std::span<const Field> list() {
    using T = DeviceKernels;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::device>("device", Unit::kNone, "device id"),
        D::field<&T::labels>("class_overlap", Unit::kNone,
                             "activity in W by the classes running at once; no zero rows"),
        D::field<&T::activity_ns>("activity_time_us", Unit::kMicrosecondsFromNs,
                                  "sum of durations of the instances starting in W"),
        D::field<&T::distinct_names>("distinct_names", Unit::kCount, "kernel names"),
        D::field<&T::top>("top", Unit::kNone, "top N by total time, all classes"),
        D::field<&top_kernels_of_class<0>>("top_computation", Unit::kNone,
                                           "top N computation kernels"),
        D::field<&top_kernels_of_class<1>>("top_communication", Unit::kNone,
                                           "top N communication kernels"),
        D::field<&top_kernels_of_class<2>>("top_memory", Unit::kNone, "top N memory activities"),
        D::field<[](const T& d) {
          return KernelOthers{d.others_count, d.others_ns};
        }>("others", Unit::kNone, "everything after the top N"),
        D::field<[](const T& d) { return KernelOthersByClass{&d}; }>("others_by_class", Unit::kNone,
                                                                     "after each class's top N"),
    };
    return k;
  }
};

template <>
struct Fields<KernelBreakdownResult> {
  static constexpr std::string_view kName = "Kernels";
  static std::span<const Field> list() {
    using T = KernelBreakdownResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without GPU activity"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::devices>("devices", Unit::kNone, "per device"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
