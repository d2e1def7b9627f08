// What the HTML report's timeline shows: a few representative kept steps (the median step, the
// slowest step, the steps the findings rest on) and the events the findings name, chosen from
// the trace and the analyses as plain data. The page's script only draws this; all the choices
// are made here, where unit tests can see them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"

namespace stepscope::render::html {

// What bounds the page: steps, events, and the text of their names. Kernel names can run to
// kilobytes of template arguments, so each string is cut at max_string_bytes, and once the
// strings hold string_budget_bytes new ones are cut at short_string_bytes: with the defaults the
// embedded data stays under about 3 MB whatever the trace holds.
struct TimelineLimits {
  std::size_t max_steps = 4;
  std::size_t max_events = 20'000;
  std::size_t max_string_bytes = 256;
  std::size_t string_budget_bytes = 1'500'000;
  std::size_t short_string_bytes = 24;
};

// One row group of the drawing: a host thread or a device stream.
struct TimelineLane {
  std::string label;  // "thread 12 (python)", "GPU 0 stream 7"
  bool device = false;
  int rows = 1;  // nesting depth + 1
};

inline constexpr std::int32_t kNoString = -1;

struct TimelineEvent {
  EventIndex event = kNoEvent;  // in the trace
  std::int64_t start_ns = 0;    // trace time
  std::int64_t dur_ns = 0;
  std::uint32_t lane = 0;
  int row = 0;  // nesting depth in its lane (calls deeper than 31 share the last row)
  std::int32_t name = kNoString;  // indices into TimelineData::strings
  EventClass event_class = EventClass::kOther;
  std::int64_t step = -1;           // number of the chosen step it falls in, -1: none
  int phase = -1;                   // Phase of the innermost phase marker around it, -1: none
  std::int32_t op = kNoString;      // device activity: the op it is attributed to
  std::int32_t launch = kNoString;  // device activity: its runtime / driver launch call
  std::int32_t frame = kNoString;   // "file.py:LINE function", where the trace has stacks
  std::int32_t module = kNoString;  // "Net_0/Block_1/Linear_0", where the trace has modules
};

// Why a step was chosen.
enum class StepChoice : std::uint8_t { kMedian, kSlowest, kFinding };
[[nodiscard]] std::string_view to_string(StepChoice choice);

struct TimelineStep {
  std::int64_t number = 0;
  std::int64_t start_ns = 0;  // the union of the host span and the device-rebased span
  std::int64_t end_ns = 0;
  StepChoice why = StepChoice::kMedian;
};

// Where a phase's markers (`## forward ##`, `Optimizer.step#…`, …) cover a chosen step: the
// union of their host spans over all threads, gaps under kPhaseGapNs closed so that hundreds of
// back-to-back backward ops read as one band.
inline constexpr std::int64_t kPhaseGapNs = 10'000;
struct TimelinePhaseSpan {
  int phase = 0;  // Phase
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

// A finding's evidence as the timeline sees it: the drawn events it names and the spans from
// its first to its last referenced event (shown even where the events were left out).
struct TimelineFinding {
  std::size_t index = 0;  // in Diagnosis::findings
  std::string id;
  std::vector<std::uint32_t> events;  // indices into TimelineData::events
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
};

struct TimelineData {
  std::int64_t rank = 0;
  std::int64_t origin_ns = 0;  // the earliest time shown; the page draws times relative to it
  std::int64_t end_ns = 0;
  std::vector<TimelineLane> lanes;
  std::vector<TimelineEvent> events;  // sorted by lane, then start
  std::vector<std::string> strings;   // raw trace text (cut, see TimelineLimits): escape on output
  std::vector<TimelineStep> steps;    // by step number
  std::vector<TimelinePhaseSpan> phases;
  std::vector<TimelineFinding> findings;
  // Indices into events of those on the kept steps' critical path (what_if.h), ascending.
  std::vector<std::uint32_t> critical_path;
  std::size_t candidate_events = 0;  // before the cap: events.size() of them are kept
  [[nodiscard]] bool empty() const { return events.empty(); }
};

// Chooses up to limits.max_steps kept steps (median, slowest, then the steps the findings' events
// sit in) and up to limits.max_events of their host and device events, together with the events
// the findings reference (by name, between the first and last referenced time), wherever those
// sit. When there are more, the finding events keep up to half the cap and the longest events
// are kept. Pure: the same inputs give the same data.
TimelineData select_timeline(const RankAnalyses& analyses, const Diagnosis& diagnosis,
                             const TimelineLimits& limits = {});

}  // namespace stepscope::render::html
