#include "analysis/hta/rows.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

namespace stepscope::hta {

namespace {

// The double pandas reads for a literal of `ns / 1000` µs: rebuild the decimal text (exact for
// Kineto's three decimals) and let from_chars round it correctly.
double literal_as_double(std::int64_t ns) {
  char text[48];
  const bool negative = ns < 0;
  const std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  const int length = std::snprintf(text, sizeof text, "%s%llu.%03llu", negative ? "-" : "",
                                   static_cast<unsigned long long>(magnitude / 1000),
                                   static_cast<unsigned long long>(magnitude % 1000));
  double value = 0;
  std::from_chars(text, text + length, value);
  return value;
}

// `get_kernel_type` once per distinct name rather than once per row.
class KernelTypeCache {
 public:
  explicit KernelTypeCache(const Trace& trace) : trace_(trace), known_(trace.strings.size()) {}
  KernelType of(StringId name) {
    std::optional<KernelType>& slot = known_[name];
    if (!slot) slot = kernel_type(trace_.strings.view(name));
    return *slot;
  }

 private:
  const Trace& trace_;
  std::vector<std::optional<KernelType>> known_;
};

Row make_row(const Trace& trace, EventIndex i, bool rounding, KernelTypeCache& types) {
  const EventTable& e = trace.events;
  Row row;
  row.event = i;
  if (rounding) {
    const double ts = literal_as_double(e.start_ns[i]);
    const double dur = literal_as_double(e.dur_ns[i]);
    row.start_ns = static_cast<std::int64_t>(std::ceil(ts)) * 1000;
    row.end_ns = static_cast<std::int64_t>(std::floor(ts + dur)) * 1000;
  } else {
    row.start_ns = e.start_ns[i];
    row.end_ns = e.end_ns(i);
  }
  row.stream = e.stream[i];
  row.correlation = e.correlation[i];
  if (row.stream != -1) row.type = types.of(e.name[i]);
  const std::string_view name = trace.name_of(i);
  row.gpu_side =
      (row.stream >= 0 && row.correlation >= 0) || name == "Event Sync" || name == "Context Sync";
  return row;
}

std::vector<Row> rows_of(const Trace& trace, bool rounding) {
  std::vector<Row> rows;
  rows.reserve(trace.events.size());
  KernelTypeCache types(trace);
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    // `_compress_df`: rows have dur and cat, and cat is not "Trace" (case-sensitive); our table
    // holds complete events only, which all have dur.
    const std::string_view category = trace.strings.view(trace.events.category[i]);
    if (category.empty() || category == "Trace") continue;
    rows.push_back(make_row(trace, i, rounding, types));
  }
  return rows;
}

// `Trace._filter_irrelevant_gpu_kernels`: keep the host rows that start before the last
// ProfilerStep, then each device row once per kept host row with its correlation (pandas' inner
// merge, so a duplicated correlation duplicates the device row). A rank without a step of its
// own compares against NaN in HTA and keeps nothing; the first host start does the same here.
std::vector<Row> filter_steps(const Trace& trace, const std::vector<Row>& rows) {
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::int64_t first_cpu = std::numeric_limits<std::int64_t>::max();
  for (const Row& row : rows) {
    if (row.gpu_side) continue;
    first_cpu = std::min(first_cpu, row.start_ns);
    if (is_profiler_step_name(trace.name_of(row.event))) last = std::max(last, row.start_ns);
  }
  if (last == std::numeric_limits<std::int64_t>::min()) last = first_cpu;
  std::vector<Row> kept;
  std::unordered_map<std::int64_t, int> cpu_rows_by_correlation;
  for (const Row& row : rows) {
    if (row.gpu_side || row.start_ns >= last) continue;
    kept.push_back(row);
    ++cpu_rows_by_correlation[row.correlation];
  }
  for (const Row& row : rows) {
    if (!row.gpu_side) continue;
    auto found = cpu_rows_by_correlation.find(row.correlation);
    if (found == cpu_rows_by_correlation.end()) continue;
    for (int copy = 0; copy < found->second; ++copy) kept.push_back(row);
  }
  return kept;
}

}  // namespace

bool is_profiler_step_name(std::string_view name) {
  if (name.substr(0, kProfilerStepPrefix.size()) != kProfilerStepPrefix ||
      name.size() == kProfilerStepPrefix.size()) {
    return false;
  }
  for (char c : name.substr(kProfilerStepPrefix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool trace_needs_rounding(const Trace& trace) {
  return trace.stats.any_fractional_ts_literal || trace.stats.any_event_without_ts;
}

// HTA also shifts every rank by the global minimum ts (§0.6 step 6); no figure depends on
// absolute times, so the rows keep theirs.
std::vector<RankRows> build_rows(const TraceSet& traces, bool rounding, bool& step_filter) {
  std::set<std::string_view> step_names;
  for (const Trace& trace : traces.ranks) {
    for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
      if (is_profiler_step_name(trace.name_of(i))) step_names.insert(trace.name_of(i));
    }
  }
  step_filter = step_names.size() >= 2;
  std::vector<RankRows> ranks;
  for (const Trace& trace : traces.ranks) {
    RankRows rank;
    rank.trace = &trace;
    rank.all = rows_of(trace, rounding && trace_needs_rounding(trace));
    rank.kept = step_filter ? filter_steps(trace, rank.all) : rank.all;
    ranks.push_back(std::move(rank));
  }
  return ranks;
}

}  // namespace stepscope::hta
