// HTA's row set of one rank (docs/metrics/00-conventions-for-every-figure.md §0.6): the complete
// events, rounded inward to whole microseconds when the trace's `ts` column is floating point, with
// HTA's stream and correlation columns, and the step filter that drops the last profiler step.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "stepscope/analysis/hta/hta_report.h"
#include "stepscope/load.h"

namespace stepscope::hta {

struct Row {
  EventIndex event = kNoEvent;
  std::int64_t start_ns = 0;  // whole µs when rounded
  std::int64_t end_ns = 0;    // may precede start after rounding (a sub-µs event: dur −1 µs)
  std::int64_t stream = -1;   // integer args.stream, else -1
  std::int64_t correlation = -1;
  bool gpu_side = false;
  KernelType type = KernelType::kOther;  // `get_kernel_type` of the name, for rows with a stream
  [[nodiscard]] std::int64_t dur_ns() const { return end_ns - start_ns; }
};

struct RankRows {
  const Trace* trace = nullptr;
  std::vector<Row> all;   // before the step filter (launch links are built on these)
  std::vector<Row> kept;  // HTA's scope, GPU rows repeated once per matching CPU row
};

// pandas makes `ts` a float column when any event's `ts` is not an integer literal or any
// event lacks `ts`; then HTA rounds every row inward (`round_down_time_stamps`).
bool trace_needs_rounding(const Trace& trace);

// The rows of every rank, with the step filter applied when the ranks' names hold at least two
// distinct `ProfilerStep#N` (`Trace._filter_irrelevant_gpu_kernels`).
std::vector<RankRows> build_rows(const TraceSet& traces, bool rounding, bool& step_filter);

inline constexpr std::string_view kProfilerStepPrefix = "ProfilerStep#";
// `ProfilerStep#` followed by at least one digit and nothing else.
bool is_profiler_step_name(std::string_view name);

}  // namespace stepscope::hta
