// compat-hta: Holistic Trace Analysis's figures (HTA 0.6.1 @f4d0062c,
// docs/metrics/00-conventions-for-every-figure.md §0.6 and the compat-hta parts of §1.3 and §3 to
// §8), reproduced with their artefacts: HTA's row scope and step filter, its rounding of fractional
// timestamps to whole microseconds, its name-based kernel classes, and its folded kernel
// statistics. Times are nanoseconds (whole microseconds when HTA rounds); renderers print
// microseconds as HTA does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/load.h"

namespace stepscope::hta {

enum class KernelType : std::uint8_t { kComputation, kCommunication, kMemory, kOther };
[[nodiscard]] std::string_view to_string(KernelType type);
// hta/utils/utils.py `get_kernel_type`: by name only, first match wins
// (docs/metrics/04-hta-gpu-kernel-breakdown.md §4.1).
[[nodiscard]] KernelType kernel_type(std::string_view name);

// `BreakdownAnalysis.get_temporal_breakdown` (§3).
struct Temporal {
  std::int64_t kernel_span_ns = 0;
  std::int64_t idle_ns = 0;
  std::int64_t compute_ns = 0;
  std::int64_t non_compute_ns = 0;
  double idle_percent = 0;  // rounded to 2 decimals, as HTA reports
  double compute_percent = 0;
  double non_compute_percent = 0;
};

// Per-instance statistics of one kernel name of one class (what HTA should have reported).
struct KernelStats {
  std::string name;
  KernelType type = KernelType::kComputation;
  std::int64_t count = 0;
  std::int64_t sum_ns = 0;
  double mean_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double std_ns = 0;  // sample (n − 1); 0 for a single instance
  // The class has more than ten names, so HTA's table shows max = min = mean = sum, std 0.
  bool hta_stats_are_per_name_totals = false;
  // HTA renamed this name to `others` (§4.3 folding rule).
  bool folded_into_others = false;
};

// One row of HTA's own kernel table (`_aggr_gpu_kernel_time`), statistics exactly as HTA
// computes them, wrong ones included (§4.3).
struct HtaKernelRow {
  std::string name;  // a kernel name or "others"
  KernelType type = KernelType::kComputation;
  std::int64_t rank = 0;
  std::int64_t sum_ns = 0;
  double max_ns = 0;
  double min_ns = 0;
  double mean_ns = 0;
  double std_ns = 0;
};

// `_analyze_idle_time_for_stream` (§5): HTA lists a category only when a gap fell in it, except
// `other`, which always appears.
struct IdleStream {
  std::int64_t stream = -1;
  std::int64_t host_wait_ns = 0;
  std::int64_t kernel_wait_ns = 0;
  std::int64_t other_ns = 0;
  std::int64_t host_wait_gaps = 0;
  std::int64_t kernel_wait_gaps = 0;
  std::int64_t other_gaps = 0;
  // Category / stream total, 2 decimals; null when the stream has no idle (0 / 0 in pandas).
  std::optional<double> host_wait_ratio;
  std::optional<double> kernel_wait_ratio;
  std::optional<double> other_ratio;
};

// `CudaKernelAnalysis.cuda_kernel_launch_stats` (§7): one pair per (launch call, activity).
struct LaunchStats {
  std::int64_t pairs = 0;
  std::int64_t cpu_duration_ns = 0;
  std::int64_t gpu_duration_ns = 0;
  std::int64_t launch_delay_ns = 0;
  std::int64_t cpu_duration_over_50us = 0;
  std::int64_t launch_delay_over_100us = 0;
  std::int64_t short_kernels = 0;  // cpu_duration ≤ 50 µs and gpu_duration < cpu_duration
};

// `get_queue_length_summary_from_time_series` (§8): statistics over the change points.
struct QueueStream {
  std::int64_t stream = -1;
  std::int64_t samples = 0;
  double mean = 0;
  double std = 0;  // sample (n − 1)
  std::int64_t min = 0;
  double p25 = 0;
  double p50 = 0;
  double p75 = 0;
  std::int64_t max = 0;
};

struct RankFigures {
  std::int64_t rank = 0;
  bool has_gpu_rows = false;  // HTA fails (IndexError) on a rank without any
  Temporal temporal;
  std::vector<KernelStats> kernels;  // every name, by class then sum, largest first
  std::vector<KernelStats> others;   // HTA's `others` row per folded class (per-name totals)
  std::vector<HtaKernelRow> hta_kernel_table;       // HTA's table of this rank, in HTA's order
  std::vector<IdleStream> idle;                     // by stream
  std::optional<double> comm_comp_overlap_percent;  // null without communication
  LaunchStats launches;
  std::vector<QueueStream> queues;  // by stream
};

struct ClassLabel {
  std::string label;  // "COMPUTATION overlapping COMMUNICATION", ...
  std::int64_t sum_ns = 0;
  double percent = 0;  // rounded to 1 decimal
};

struct HtaReport {
  bool rounding = true;  // whole-microsecond rounding applied (a fractional-ts trace)
  bool step_filter = false;
  std::vector<std::int64_t> profiler_steps;  // across ranks, last step dropped by the filter
  std::vector<ClassLabel> kernel_classes;    // summed over ranks, by sum (zero rows included)
  std::vector<RankFigures> ranks;
  std::vector<std::string> quirks;
};

// Every figure for every rank, without being told the rank (HTA's API defaults to rank 0).
HtaReport compute_hta_report(const TraceSet& traces, const AnalysisOptions& options);

}  // namespace stepscope::hta
