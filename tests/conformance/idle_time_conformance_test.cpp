// Native idle time per stream (docs/metrics/05-hta-idle-time-breakdown-per-stream.md §5) on the
// ranks of conformance.md §6. There are no native reference figures for it, so this checks what
// must hold exactly on real traces: per stream, leading + categorized gaps + trailing + the
// stream's own busy time = |W|; kernel waits are shorter than 30 µs; every rank is analysed (HTA's
// default analyses rank 0 only).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "conformance/native_expectations.h"
#include "stepscope/analysis/idle_time.h"
#include "stepscope/intervals.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

using StreamKey = std::pair<std::int32_t, std::int64_t>;

// |U(activities of each stream) ∩ W|, computed independently of the analysis.
std::map<StreamKey, std::int64_t> busy_per_stream(const Trace& trace, Interval window) {
  std::map<StreamKey, std::vector<Interval>> intervals;
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_device_activity(e.event_class[i])) continue;
    intervals[{trace.activity_device(i), trace.activity_stream(i)}].push_back(
        {e.start_ns[i], e.end_ns(i)});
  }
  std::map<StreamKey, std::int64_t> busy;
  for (auto& [key, list] : intervals) {
    busy[key] = IntervalSet::from_unsorted(std::move(list)).clip(window).measure();
  }
  return busy;
}

// Streams of HTA's idle tables in conformance.md §5 (HTA `ranks=[r]` rows included).
const std::map<std::string, std::set<std::int64_t>> kHtaStreams = {
    {"hta/amd_trace", {0}},
    {"hta/critical_path/alexnet", {7, 20}},
    {"hta/df_index_resolver", {7, 14}},
    {"hta/nccl_parser_config", {7, 40}},
    {"hta/negative_queue_length_values_check", {7, 25, 27, 84, 285, 363}},
    {"hta/ns_resolution_trace", {7}},
};

TEST(IdleTimeConformance, GapsLeadingAndTrailingIdleFillTheWindowOnEveryStream) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const testing::NativeExpectation& row : testing::native_expectations()) {
    const TraceSet set = testing::load_shared(row.folder);
    const Trace* trace = testing::rank_of(set, row.rank);
    ASSERT_NE(trace, nullptr) << row.folder;
    const std::string what = row.folder + " rank " + std::to_string(row.rank);
    const StepsResult steps = find_steps(*trace, {});
    const IdleTimeResult r = compute_idle_time(*trace, steps, {});
    ASSERT_TRUE(r.applicable) << what;
    const Interval window = *steps.window;
    const auto busy = busy_per_stream(*trace, window);
    std::set<std::int64_t> streams;
    for (const StreamIdle& s : r.streams) {
      const std::string where = what + " stream " + std::to_string(s.stream);
      streams.insert(s.stream);
      ASSERT_TRUE(busy.contains({s.device, s.stream})) << where;
      EXPECT_EQ(s.leading_idle_ns + s.idle_between_ns() + s.trailing_idle_ns +
                    busy.at({s.device, s.stream}),
                window.length())
          << where;
      const IdleCauseTotals& kernel_wait = s[IdleCause::kKernelWait];
      EXPECT_LT(kernel_wait.ns, (kernel_wait.gaps + 1) * r.kernel_wait_threshold_ns) << where;
      for (const IdleCauseTotals& cause : s.causes) {
        EXPECT_EQ(cause.gaps == 0, cause.ns == 0) << where;
      }
    }
    if (const auto hta = kHtaStreams.find(row.folder); hta != kHtaStreams.end()) {
      EXPECT_EQ(streams, hta->second) << what;
    }
  }
}

TEST(IdleTimeConformance, GpuBoundTraceWaitsOnKernelsNotOnTheHost) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // negative_queue_length_values_check: the host runs far ahead (queue up to 946), so on
  // stream 7 no gap waits on a launch (HTA: host wait 0 there too).
  const TraceSet set = testing::load_shared("hta/negative_queue_length_values_check");
  const Trace& trace = set.ranks[0];
  const IdleTimeResult r = compute_idle_time(trace, find_steps(trace, {}), {});
  const StreamIdle* stream7 = nullptr;
  for (const StreamIdle& s : r.streams) {
    if (s.stream == 7) stream7 = &s;
  }
  ASSERT_NE(stream7, nullptr);
  EXPECT_EQ((*stream7)[IdleCause::kHostWait].ns, 0);
  EXPECT_GT((*stream7)[IdleCause::kKernelWait].gaps, 0);
}

}  // namespace
}  // namespace stepscope
