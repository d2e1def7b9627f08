// HTA's idle time per stream of one rank (§5, `BreakdownAnalysis.get_idle_time_breakdown`,
// `_analyze_idle_time_for_stream`), for every rank rather than HTA's default rank 0.
#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "analysis/hta/gpu_figures.h"
#include "analysis/hta/stats.h"

namespace stepscope::hta {

namespace {

constexpr std::int64_t kConsecutiveKernelDelayNs = 30'000;  // `consecutive_kernel_delay=30` µs

// The categories of the rows the idle analysis reads, compared as written (case-sensitive).
bool is_idle_category(std::string_view category) {
  static constexpr std::array<std::string_view, 7> kCategories = {
      "kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events"};
  return std::find(kCategories.begin(), kCategories.end(), category) != kCategories.end();
}

// `transform_correlation_to_index`, built before the step filter: a device row's launch is the
// host row (stream −1) with its correlation; of several, the last one assigned wins in pandas.
std::unordered_map<std::int64_t, std::int64_t> launch_starts(const RankRows& rows) {
  std::unordered_map<std::int64_t, std::int64_t> starts;
  for (const Row& row : rows.all) {
    if (row.stream == -1 && row.correlation != -1) starts[row.correlation] = row.start_ns;
  }
  return starts;
}

std::map<std::int64_t, std::vector<const Row*>> rows_by_stream(const RankRows& rows) {
  const Trace& trace = *rows.trace;
  std::map<std::int64_t, std::vector<const Row*>> streams;
  for (const Row& row : rows.kept) {
    if (row.stream == -1) continue;
    if (!is_idle_category(trace.strings.view(trace.events.category[row.event]))) continue;
    streams[row.stream].push_back(&row);
  }
  return streams;
}

std::optional<double> ratio(std::int64_t part, std::int64_t total) {
  if (total == 0) return std::nullopt;  // 0 / 0 in pandas
  return round_to(static_cast<double>(part) / static_cast<double>(total), 2);
}

// Each gap after the first row: host wait when the launch started after the previous row's end
// (the previous row in start order, not the running maximum), else kernel wait when the gap is
// under 30 µs (negative gaps included), else other. A row without a launch is never host wait.
IdleStream stream_idle(std::int64_t stream, std::vector<const Row*>& list,
                       const std::unordered_map<std::int64_t, std::int64_t>& launches) {
  std::stable_sort(list.begin(), list.end(),
                   [](const Row* a, const Row* b) { return a->start_ns < b->start_ns; });
  IdleStream idle;
  idle.stream = stream;
  for (std::size_t k = 1; k < list.size(); ++k) {
    const std::int64_t previous_end = list[k - 1]->end_ns;
    const std::int64_t gap = list[k]->start_ns - previous_end;
    const auto launch = launches.find(list[k]->correlation);
    if (launch != launches.end() && launch->second > previous_end) {
      idle.host_wait_ns += gap;
      ++idle.host_wait_gaps;
    } else if (gap < kConsecutiveKernelDelayNs) {
      idle.kernel_wait_ns += gap;
      ++idle.kernel_wait_gaps;
    } else {
      idle.other_ns += gap;
      ++idle.other_gaps;
    }
  }
  const std::int64_t total = idle.host_wait_ns + idle.kernel_wait_ns + idle.other_ns;
  idle.host_wait_ratio = ratio(idle.host_wait_ns, total);
  idle.kernel_wait_ratio = ratio(idle.kernel_wait_ns, total);
  idle.other_ratio = ratio(idle.other_ns, total);
  return idle;
}

}  // namespace

std::vector<IdleStream> idle_time(const RankRows& rows) {
  const auto launches = launch_starts(rows);
  std::vector<IdleStream> out;
  for (auto& [stream, list] : rows_by_stream(rows)) {
    out.push_back(stream_idle(stream, list, launches));
  }
  return out;
}

}  // namespace stepscope::hta
