// Checks on an annotated trace loaded back: the original events all there, and the markers.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::testing {

// A complete event as a comparable row: category, name, start, duration, pid and tid.
using EventRow =
    std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::string, std::string>;

inline std::vector<EventRow> event_rows(const Trace& trace, std::int64_t skip_pid) {
  std::vector<EventRow> rows;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const auto e = static_cast<EventIndex>(i);
    const ThreadInfo& thread = trace.threads[trace.events.thread[i]];
    if (thread.pid_number == skip_pid) continue;
    rows.emplace_back(std::string(trace.strings.view(trace.events.category[i])),
                      std::string(trace.name_of(e)), trace.events.start_ns[i],
                      trace.events.dur_ns[i], thread.key.pid, thread.key.tid);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

inline std::map<std::string, std::size_t> rows_per_category(const std::vector<EventRow>& rows) {
  std::map<std::string, std::size_t> counts;
  for (const EventRow& row : rows) ++counts[std::get<0>(row)];
  return counts;
}

// Every complete event of `original` is in `annotated` with the same category, name, times and
// thread, and nothing else is, outside the marker process `marker_pid`.
inline void expect_original_events_survive(const Trace& original, const Trace& annotated,
                                           std::int64_t marker_pid) {
  const std::vector<EventRow> before = event_rows(original, marker_pid);
  const std::vector<EventRow> after = event_rows(annotated, marker_pid);
  EXPECT_EQ(rows_per_category(before), rows_per_category(after));
  ASSERT_EQ(before.size(), after.size());
  EXPECT_TRUE(before == after) << "complete events differ after annotating";
  EXPECT_EQ(original.memory.size(), annotated.memory.size());
  EXPECT_EQ(original.flows.size(), annotated.flows.size());
  EXPECT_EQ(original.stats.counter_events, annotated.stats.counter_events);
  EXPECT_EQ(original.stats.async_events, annotated.stats.async_events);
  EXPECT_EQ(original.stats.invalid_complete_events, annotated.stats.invalid_complete_events);
}

struct MarkerSpan {
  std::int64_t tid = 0;
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t dur_ns = 0;
  bool operator==(const MarkerSpan&) const = default;
};

inline std::vector<MarkerSpan> marker_spans(const Trace& trace, std::int64_t marker_pid) {
  std::vector<MarkerSpan> spans;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const ThreadInfo& thread = trace.threads[trace.events.thread[i]];
    if (thread.pid_number != marker_pid) continue;
    spans.push_back({thread.tid_number, std::string(trace.name_of(static_cast<EventIndex>(i))),
                     trace.events.start_ns[i], trace.events.dur_ns[i]});
  }
  return spans;
}

}  // namespace stepscope::testing
