// Collective bandwidth, rank-local (docs/metrics/14-collective-bandwidth-nccl-tests-conventi.md §14
// native): for every NCCL/RCCL kernel the bytes it moved (from the Kineto collective args) over its
// duration, aggregated per device, collective and power-of-two size bucket with nccl-tests' algbw /
// busbw conventions.
//
// A kernel's duration includes waiting for the slowest peer, so these figures are lower bounds
// of the link's bandwidth (nccl-tests' and TraceLens's `rank_busbw`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class Collective : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,
  kReduce,
  kSendRecv,
  kOther,  // barrier, gather, scatter, ...: no nccl-tests convention, so no bandwidth
};
[[nodiscard]] std::string_view to_string(Collective collective);
// From Kineto's `Collective name` (`allreduce`, `_allgather_base`, `reduce_scatter_tensor_
// coalesced`, `all_to_all`, `send`, ...): case and underscores are ignored.
[[nodiscard]] Collective parse_collective(std::string_view name);
// Bytes per element of a Kineto `dtype` (`Float`, `BFloat16`, `Float8_e4m3fn`, ...); 0 if unknown.
[[nodiscard]] std::int64_t dtype_size_bytes(std::string_view dtype);
// nccl-tests' bus-bandwidth factor f(n) (doc/PERFORMANCE.md): busbw = algbw × f(n).
[[nodiscard]] double bus_factor(Collective collective, std::int64_t group_size);

// Calls aggregated as nccl-tests does over iterations: Σ bytes / Σ time, never a mean of ratios.
struct BandwidthTotals {
  std::int64_t calls = 0;
  std::int64_t bytes = 0;     // Σ S
  std::int64_t time_ns = 0;   // Σ t (kernel durations)
  double bus_bytes = 0;       // Σ S × f(n)
  double algbw_gb_per_s = 0;  // Σ S / Σ t, GB = 10^9 bytes
  double busbw_gb_per_s = 0;  // Σ S·f / Σ t
};

struct SizeBucket {
  std::int64_t min_bytes = 0;  // [min_bytes, max_bytes): a power-of-two range
  std::int64_t max_bytes = 0;
  BandwidthTotals totals;
};

// The call with the highest algbw: the best the link showed (least waiting on peers).
struct FastestCall {
  EventIndex event = kNoEvent;
  std::int64_t bytes = 0;
  std::int64_t time_ns = 0;
  double algbw_gb_per_s = 0;
  double busbw_gb_per_s = 0;
};

struct CollectiveBandwidth {
  std::int32_t device = -1;
  Collective collective = Collective::kOther;
  std::int64_t group_size = kAbsent;  // -1 when calls of different group sizes are mixed
  BandwidthTotals totals;             // every size
  std::vector<SizeBucket> buckets;    // ascending size
  FastestCall fastest;
};

// Communication kernels that give no bandwidth, by reason, so that none is dropped silently.
struct SkippedCollectives {
  std::int64_t without_args = 0;      // no collective args on the kernel nor its launching op
  std::int64_t unknown_dtype = 0;     // dtype with no known element size
  std::int64_t other_collective = 0;  // barrier, gather, scatter, ...
  std::int64_t zero_duration = 0;     // t = 0: no rate
  std::int64_t outside_window = 0;    // start outside W
};

struct CollectiveBandwidthResult {
  bool applicable = false;
  std::string not_applicable_reason;             // "no GPU activity", "no communication kernels"
  std::int64_t communication_kernels = 0;        // in W
  std::int64_t args_from_launching_op = 0;       // sized through record_param_comms, not the kernel
  std::vector<CollectiveBandwidth> collectives;  // by device, then collective
  SkippedCollectives skipped;
};

// Native: communication kernels (kernel_class.h) whose start lies in the window W; S from the
// kernel's args, else from the nearest enclosing op with collective args (record_param_comms).
CollectiveBandwidthResult compute_collective_bandwidth(const Trace& trace, const StepsResult& steps,
                                                       const AnalysisOptions& options);

}  // namespace stepscope
