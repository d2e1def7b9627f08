// The figures of the memory curve (memory_curve.h), from `[memory]` events. Kept beside the
// JSON writer (not in include/) because the curve is written down-sampled (memory_curve_points.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "render/json/memory_curve_points.h"
#include "stepscope/analysis/memory_curve.h"
#include "stepscope/figures/fields.h"
#include "stepscope/trace.h"

namespace stepscope::figures {

// A byte count of T, null when it is unknown (-1).
template <typename T, std::int64_t T::*Member>
std::optional<std::int64_t> known_bytes(const T& object) {
  if (object.*Member < 0) return std::nullopt;
  return object.*Member;
}

template <>
struct Fields<LiveAllocations> {
  static constexpr std::string_view kName = "LiveAllocations";
  static std::span<const Field> list() {
    using T = LiveAllocations;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::op>("op", Unit::kNone,
                         "the innermost op on the allocating thread; `(no op)` when none"),
        D::field<&T::bytes>("bytes", Unit::kBytes, "bytes of these allocations"),
        D::field<&T::count>("allocations", Unit::kCount, "allocations"),
        D::field<&T::first_time_ns>("first_allocation_us", Unit::kMicrosecondsFromNs,
                                    "trace time of the earliest"),
    };
    return k;
  }
};

template <>
struct Fields<StepMemory> {
  static constexpr std::string_view kName = "StepMemory";
  static std::span<const Field> list() {
    using T = StepMemory;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::step>("step", Unit::kNone, "ProfilerStep number"),
        D::field<&T::kept>("kept", Unit::kNone, "a kept step"),
        D::field<&known_bytes<T, &T::allocated_at_start>>(
            "allocated_at_start_bytes", Unit::kBytes,
            "allocated at the step's start; null without an earlier record"),
        D::field<&known_bytes<T, &T::allocated_at_end>>("allocated_at_end_bytes", Unit::kBytes,
                                                        "allocated at its end"),
        D::field<&known_bytes<T, &T::peak_allocated>>(
            "peak_allocated_bytes", Unit::kBytes, "largest over the records inside its host span"),
    };
    return k;
  }
};

// What runs at a device's allocation peak.
struct MemoryPeak {
  const DeviceMemory& device;
};

inline std::optional<std::int64_t> peak_allocated(const MemoryPeak& p) {
  return known_bytes<DeviceMemory, &DeviceMemory::peak_allocated>(p.device);
}
inline std::int64_t peak_time(const MemoryPeak& p) { return p.device.peak_allocated_time_ns; }
inline std::optional<std::int64_t> peak_reserved(const MemoryPeak& p) {
  return known_bytes<DeviceMemory, &DeviceMemory::reserved_at_peak>(p.device);
}
inline const std::optional<std::int64_t>& peak_step(const MemoryPeak& p) {
  return p.device.peak_step;
}
inline std::optional<std::string_view> peak_op(const MemoryPeak& p, const Context& context) {
  if (p.device.peak_op == kNoEvent) return std::nullopt;
  return context.trace->name_of(p.device.peak_op);
}
inline const std::optional<Phase>& peak_phase(const MemoryPeak& p) { return p.device.peak_phase; }
inline const std::vector<LiveAllocations>& peak_live_by_op(const MemoryPeak& p) {
  return p.device.live_at_peak_by_op;
}

template <>
struct Fields<MemoryPeak> {
  static constexpr std::string_view kName = "MemoryPeak";
  static std::span<const Field> list() {
    using D = Describe<MemoryPeak>;
    static const Field k[] = {
        D::field<&peak_allocated>("allocated_bytes", Unit::kBytes, "the allocation peak"),
        D::field<&peak_time>("time_us", Unit::kMicrosecondsFromNs, "the first record reaching it"),
        D::field<&peak_reserved>("reserved_bytes", Unit::kBytes, "reserved then"),
        D::field<&peak_step>("step", Unit::kNone, "ProfilerStep number; null outside steps"),
        D::field<&peak_op>("op", Unit::kNone, "innermost op on the allocating thread"),
        D::field<&peak_phase>("phase", Unit::kNone,
                              "from the phase markers around it; null when unmarked"),
        D::field<&peak_live_by_op>("live_by_op", Unit::kNone,
                                   "allocations made in the trace and live at the peak, largest "
                                   "first"),
    };
    return k;
  }
};

// One point of the curve, written as `[time_us, allocated_bytes, reserved_bytes]`.
struct MemoryCurvePoint {
  std::int64_t time_ns = 0;
  std::int64_t allocated = 0;
  std::optional<std::int64_t> reserved;
};

template <>
struct Fields<MemoryCurvePoint> {
  static constexpr std::string_view kName = "MemoryCurvePoint";
  static constexpr bool kPositional = true;
  static std::span<const Field> list() {
    using T = MemoryCurvePoint;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::time_ns>("time_us", Unit::kMicrosecondsFromNs, "trace time of the record"),
        D::field<&T::allocated>("allocated_bytes", Unit::kBytes, "Total Allocated after it"),
        D::field<&T::reserved>("reserved_bytes", Unit::kBytes,
                               "Total Reserved after it; null when missing"),
    };
    return k;
  }
};

// The curve as drawn: down-sampled with LTTB, the peak always kept.
struct MemoryCurve {
  std::uint64_t points_total = 0;
  bool downsampled = false;
  std::vector<MemoryCurvePoint> points;
};

inline MemoryCurve memory_curve(const DeviceMemory& device) {
  const std::vector<std::size_t> kept =
      render::curve_points_to_draw(device, render::kMemoryCurvePoints);
  MemoryCurve curve{device.curve.size(), kept.size() < device.curve.size(), {}};
  curve.points.reserve(kept.size());
  for (std::size_t i : kept) {
    const MemoryPoint& p = device.curve[i];
    curve.points.push_back(
        {p.time_ns, p.allocated,
         p.reserved < 0 ? std::nullopt : std::optional<std::int64_t>(p.reserved)});
  }
  return curve;
}
inline std::string_view curve_method(const MemoryCurve& c) {
  return c.downsampled ? "lttb" : "none";
}
inline std::array<std::string_view, 3> curve_columns(const MemoryCurve&) {
  return {"time_us", "allocated_bytes", "reserved_bytes"};
}

template <>
struct Fields<MemoryCurve> {
  static constexpr std::string_view kName = "MemoryCurve";
  static std::span<const Field> list() {
    using T = MemoryCurve;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::points_total>("points_total", Unit::kCount, "records with both totals"),
        D::field<&curve_method>("downsampled", Unit::kNone, "`lttb` or `none`"),
        D::field<&curve_columns>("columns", Unit::kNone, "what each point holds"),
        D::field<&T::points>("points", Unit::kNone, "at most 2,048"),
    };
    return k;
  }
};

inline std::int64_t device_type(const DeviceMemory& d) { return d.device_type; }
inline std::int64_t device_id(const DeviceMemory& d) { return d.device_id; }
inline std::optional<std::int64_t> device_peak_allocated(const DeviceMemory& d) {
  return known_bytes<DeviceMemory, &DeviceMemory::peak_allocated>(d);
}
inline MemoryPeak device_peak(const DeviceMemory& d) { return {d}; }

template <>
struct Fields<DeviceMemory> {
  static constexpr std::string_view kName = "DeviceMemory";
  static std::span<const Field> list() {
    using T = DeviceMemory;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::label>("device", Unit::kNone, "`CPU`, `GPU 1`, or `device type 7 id 0`"),
        D::field<&device_type>("device_type", Unit::kNone, "0 CPU, 1 CUDA, others as written"),
        D::field<&device_id>("device_id", Unit::kNone, "device id"),
        D::field<&T::records>("records", Unit::kCount, "`[memory]` records"),
        D::field<&T::allocations>("allocations", Unit::kCount, "allocations"),
        D::field<&T::frees>("frees", Unit::kCount, "frees"),
        D::field<&T::never_freed>("never_freed", Unit::kCount,
                                  "allocations with no later free at their address"),
        D::field<&T::never_freed_bytes>("never_freed_bytes", Unit::kBytes, "their bytes"),
        D::field<&T::never_freed_by_op>("never_freed_by_op", Unit::kNone, "largest first"),
        D::field<&device_peak_allocated>("peak_allocated_bytes", Unit::kBytes,
                                         "largest Total Allocated"),
        D::field<&known_bytes<T, &T::peak_reserved>>("peak_reserved_bytes", Unit::kBytes,
                                                     "largest Total Reserved"),
        D::field<&T::peak_reserved_time_ns>("peak_reserved_time_us", Unit::kMicrosecondsFromNs,
                                            "when it was reached"),
        D::field<&known_bytes<T, &T::first_allocated>>("first_allocated_bytes", Unit::kBytes,
                                                       "in time order"),
        D::field<&known_bytes<T, &T::last_allocated>>("last_allocated_bytes", Unit::kBytes,
                                                      "in time order"),
        D::field<&known_bytes<T, &T::allocated_before_first_record>>(
            "allocated_before_first_record_bytes", Unit::kBytes,
            "tensors made before profiling started"),
        D::field<&T::fragmentation_at_peak>(
            "fragmentation_at_peak", Unit::kShare,
            "1 - allocated / reserved at the allocation peak; null when nothing is reserved"),
        D::field<&T::reserved_increases>("reserved_increases", Unit::kCount,
                                         "records where Total Reserved grew: segments taken"),
        D::field<&T::reserved_decreases>("reserved_decreases", Unit::kCount, "segments given back"),
        D::field<&device_peak>("peak", Unit::kNone, "what runs at the allocation peak"),
        D::field<&T::steps>("steps", Unit::kNone, "per profiler step"),
        D::field<&memory_curve>("curve", Unit::kNone, "the curve, down-sampled"),
    };
    return k;
  }
};

template <>
struct Fields<MemoryCurveResult> {
  static constexpr std::string_view kName = "Memory";
  static std::span<const Field> list() {
    using T = MemoryCurveResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone, "false without `[memory]` events"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<&T::origin_ns>("origin_us", Unit::kMicrosecondsFromNs,
                                "profiler start: the earliest event or record")
            .when<[](const T& r) { return r.applicable; }>(),
        D::field<&T::devices>("devices", Unit::kNone, "GPUs by id, then CPU, then other types"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
