#include "stepscope/analysis/busy_timeline.h"

#include <algorithm>
#include <map>

namespace stepscope {

namespace {

// Adds the part of [start, end) that falls in each bin.
void spread(std::vector<double>& bins, const BusyTimelineResult& r, Interval busy) {
  const std::int64_t start = std::max(busy.start, r.window.start);
  const std::int64_t end = std::min(busy.end, r.window.end);
  if (end <= start) return;
  auto bin_of = [&r, &bins](std::int64_t t) {
    return std::min(static_cast<std::size_t>((t - r.window.start) / r.bin_ns), bins.size() - 1);
  };
  for (std::size_t b = bin_of(start); b <= bin_of(end - 1); ++b) {
    const std::int64_t bin_start = r.window.start + static_cast<std::int64_t>(b) * r.bin_ns;
    const std::int64_t bin_end = b + 1 == bins.size() ? r.window.end : bin_start + r.bin_ns;
    const std::int64_t overlap = std::min(end, bin_end) - std::max(start, bin_start);
    if (overlap > 0) bins[b] += static_cast<double>(overlap);
  }
}

}  // namespace

BusyTimelineResult compute_busy_timeline(const Trace& trace, const StepsResult& steps, int bins) {
  BusyTimelineResult result;
  if (!steps.window || steps.window->length() <= 0 || bins < 1) return result;
  result.window = *steps.window;
  result.bin_ns = std::max<std::int64_t>(1, result.window.length() / bins);
  std::map<std::int32_t, std::vector<Interval>> activity;
  const EventTable& e = trace.events;
  for (const EventIndex i : e.device_activities) {
    if (e.dur_ns[i] <= 0) continue;
    activity[trace.activity_device(i)].push_back(Interval{e.start_ns[i], e.end_ns(i)});
  }
  for (auto& [device, intervals] : activity) {
    DeviceBusyTimeline row;
    row.device = device;
    row.busy_share.assign(static_cast<std::size_t>(bins), 0.0);
    const IntervalSet merged = IntervalSet::from_sorted(intervals);  // collected in start order
    for (const Interval& busy : merged.intervals()) {
      spread(row.busy_share, result, busy);
    }
    for (std::size_t b = 0; b < row.busy_share.size(); ++b) {
      const std::int64_t bin_start =
          result.window.start + static_cast<std::int64_t>(b) * result.bin_ns;
      const std::int64_t bin_end =
          b + 1 == row.busy_share.size() ? result.window.end : bin_start + result.bin_ns;
      row.busy_share[b] /= static_cast<double>(std::max<std::int64_t>(1, bin_end - bin_start));
    }
    result.devices.push_back(std::move(row));
  }
  result.applicable = !result.devices.empty();
  return result;
}

}  // namespace stepscope
