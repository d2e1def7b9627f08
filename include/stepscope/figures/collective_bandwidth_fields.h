// The figures of the collective-bandwidth analysis (collective_bandwidth.h).
#pragma once

#include "stepscope/analysis/collective_bandwidth.h"
#include "stepscope/figures/fields.h"

namespace stepscope::figures {

template <>
struct Fields<BandwidthTotals> {
  static constexpr std::string_view kName = "BandwidthTotals";
  static std::span<const Field> list() {
    using T = BandwidthTotals;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::calls>("calls", Unit::kCount, "calls"),
        D::field<&T::bytes>("bytes", Unit::kBytes, "Σ S"),
        D::field<&T::time_ns>("time_us", Unit::kMicrosecondsFromNs, "Σ t (kernel durations)"),
        D::field<&T::algbw_gb_per_s>("algbw_gb_per_s", Unit::kGbPerSecond, "Σ S / Σ t"),
        D::field<&T::busbw_gb_per_s>("busbw_gb_per_s", Unit::kGbPerSecond, "Σ S·f(n) / Σ t"),
    };
    return k;
  }
};

template <>
struct Fields<FastestCall> {
  static constexpr std::string_view kName = "FastestCall";
  static std::span<const Field> list() {
    using T = FastestCall;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::bytes>("bytes", Unit::kBytes, "S of the call"),
        D::field<&T::time_ns>("time_us", Unit::kMicrosecondsFromNs, "its kernel duration"),
        D::field<&T::algbw_gb_per_s>("algbw_gb_per_s", Unit::kGbPerSecond, "S / t"),
        D::field<&T::busbw_gb_per_s>("busbw_gb_per_s", Unit::kGbPerSecond, "S·f(n) / t"),
    };
    return k;
  }
};

template <>
struct Fields<SizeBucket> {
  static constexpr std::string_view kName = "SizeBucket";
  static std::span<const Field> list() {
    using T = SizeBucket;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::min_bytes>("min_bytes", Unit::kBytes, "smallest S (inclusive)"),
        D::field<&T::max_bytes>("max_bytes", Unit::kBytes, "largest S (exclusive)"),
        D::flatten<&T::totals>(),
    };
    return k;
  }
};

template <>
struct Fields<CollectiveBandwidth> {
  static constexpr std::string_view kName = "CollectiveBandwidth";
  static std::span<const Field> list() {
    using T = CollectiveBandwidth;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::device>("device", Unit::kNone, "device id"),
        D::field<&T::collective>("collective", Unit::kNone,
                                 "`all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`, "
                                 "`broadcast`, `reduce`, `send_recv`"),
        D::field<[](const T& c) -> std::optional<std::int64_t> {
          if (0 < c.group_size) return c.group_size;
          return std::nullopt;
        }>("group_size", Unit::kCount, "n; null when calls of different group sizes mix"),
        D::flatten<&T::totals>(),
        D::field<&T::fastest>("fastest_call", Unit::kNone, "the call with the highest algbw"),
        D::field<&T::buckets>("size_buckets", Unit::kNone, "power-of-two size ranges"),
    };
    return k;
  }
};

template <>
struct Fields<SkippedCollectives> {
  static constexpr std::string_view kName = "SkippedCollectives";
  static std::span<const Field> list() {
    using T = SkippedCollectives;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::without_args>("without_args", Unit::kCount,
                                   "no collective args on the kernel nor its launching op"),
        D::field<&T::unknown_dtype>("unknown_dtype", Unit::kCount,
                                    "dtype with no known element size"),
        D::field<&T::other_collective>("other_collective", Unit::kCount,
                                       "barrier, gather, scatter, ..."),
        D::field<&T::zero_duration>("zero_duration", Unit::kCount, "t = 0: no rate"),
        D::field<&T::outside_window>("outside_window", Unit::kCount, "start outside W"),
    };
    return k;
  }
};

template <>
struct Fields<CollectiveBandwidthResult> {
  static constexpr std::string_view kName = "CollectiveBandwidthFigures";
  static std::span<const Field> list() {
    using T = CollectiveBandwidthResult;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::applicable>("applicable", Unit::kNone,
                                 "false without GPU activity or communication kernels"),
        D::field<&T::not_applicable_reason>("not_applicable_reason", Unit::kNone, "why not")
            .when<[](const T& r) { return !r.applicable; }>(),
        D::field<[](const T&) {
          return std::string_view("rank-local: t = kernel duration, a lower bound");
        }>("scope", Unit::kNone, "what the figures rest on"),
        D::field<&T::communication_kernels>("communication_kernels", Unit::kCount,
                                            "communication kernels in W"),
        D::field<&T::args_from_launching_op>("args_from_launching_op", Unit::kCount,
                                             "sized through record_param_comms, not the kernel"),
        D::field<&T::collectives>("collectives", Unit::kNone, "by device, then collective"),
        D::field<&T::skipped>("skipped", Unit::kNone,
                              "communication kernels that give no bandwidth, by reason"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
