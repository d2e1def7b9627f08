// compat-hta: Holistic Trace Analysis's figures (HTA 0.6.1 @f4d0062c, metrics.md §0.6 and the
// compat-hta parts of §1.3 and §3 to §8), reproduced with their artefacts: HTA's row scope and
// step filter, its rounding of fractional timestamps to whole microseconds, its name-based
// kernel classes, and its folded kernel statistics. Times are nanoseconds (whole microseconds
// when HTA rounds); renderers print microseconds as HTA does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/load.h"

namespace stepscope::hta {

enum class KernelType : std::uint8_t { kComputation, kCommunication, kMemory, kOther };
[[nodiscard]] std::string_view to_string(KernelType type);
// hta/utils/utils.py `get_kernel_type`: by name only, first match wins (metrics.md §4.1).
[[nodiscard]] KernelType kernel_type(std::string_view name);

struct Temporal {
  std::int64_t kernel_span_ns = 0;
  std::int64_t idle_ns = 0;
  std::int64_t compute_ns = 0;
  std::int64_t non_compute_ns = 0;
  double idle_percent = 0;  // rounded to 2 decimals, as HTA reports
  double compute_percent = 0;
  double non_compute_percent = 0;
};

// Per-instance statistics of one kernel name, and HTA's own (folded) figures for it.
struct KernelStats {
  std::string name;
  KernelType type = KernelType::kComputation;
  std::int64_t count = 0;
  std::int64_t sum_ns = 0;
  double mean_ns = 0;
  std::int64_t min_ns = 0;
  std::int64_t max_ns = 0;
  double std_ns = 0;
  // HTA's table after its folding rule (§4.3): for folded classes max = min = mean = sum.
  bool hta_stats_are_per_name_totals = false;
};

struct IdleStream {
  std::int64_t stream = -1;
  std::int64_t host_wait_ns = 0;
  std::int64_t kernel_wait_ns = 0;
  std::int64_t other_ns = 0;
};

struct LaunchStats {
  std::int64_t pairs = 0;
  std::int64_t cpu_duration_ns = 0;
  std::int64_t gpu_duration_ns = 0;
  std::int64_t launch_delay_ns = 0;
  std::int64_t cpu_duration_over_50us = 0;
  std::int64_t launch_delay_over_100us = 0;
};

struct QueueStream {
  std::int64_t stream = -1;
  std::int64_t samples = 0;
  double mean = 0;
  std::int64_t max = 0;
};

struct RankFigures {
  std::int64_t rank = 0;
  bool has_gpu_rows = false;  // HTA fails (IndexError) on a rank without any
  Temporal temporal;
  std::vector<KernelStats> kernels;  // every name, by type then sum, largest first
  std::vector<KernelStats> others;   // HTA's `others` rows per type (sum_ns; folded stats)
  std::vector<IdleStream> idle;      // by stream
  std::optional<double> comm_comp_overlap_percent;  // null without communication
  LaunchStats launches;
  std::vector<QueueStream> queues;
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
  std::vector<ClassLabel> kernel_classes;    // summed over ranks, by sum
  std::vector<RankFigures> ranks;
  std::vector<std::string> quirks;
};

// Every figure for every rank, without being told the rank (HTA's API defaults to rank 0).
HtaReport compute_hta_report(const TraceSet& traces, const AnalysisOptions& options);

}  // namespace stepscope::hta
