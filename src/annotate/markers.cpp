#include "annotate/markers.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "render/json_writer.h"

namespace stepscope::annotate {

namespace {

using render::JsonWriter;

constexpr double kNsPerMs = 1e6;

std::optional<std::int64_t> numeric_pid(const ThreadInfo& thread) {
  if (thread.pid_number != kAbsent) return thread.pid_number;
  const std::string& text = thread.key.pid;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool has_times(const EventRefs& refs) {
  return refs.count > 0 && refs.last_end_ns >= refs.first_start_ns;
}

// Where the finding's instant goes: the earliest event its evidence rests on, else the start of
// the trace (a finding about the whole run, e.g. from totals only).
std::int64_t finding_time(const Trace& trace, const Finding& finding) {
  std::optional<std::int64_t> first;
  for (const Evidence& evidence : finding.evidence) {
    for (const EventRefs& refs : evidence.events) {
      if (!has_times(refs)) continue;
      first = std::min(first.value_or(refs.first_start_ns), refs.first_start_ns);
    }
  }
  if (first) return *first;
  return trace.events.size() > 0 ? trace.events.start_ns.front() : 0;
}

void begin_event(JsonWriter& w, const char* phase, std::string_view name, std::int64_t pid,
                 std::int64_t tid) {
  w.begin_object();
  w.field("ph", phase);
  w.field("name", name);
  w.field("pid", pid);
  w.field("tid", tid);
}

void metadata(JsonWriter& w, const char* name, std::int64_t pid, std::int64_t tid,
              const char* arg_key, const auto& arg_value) {
  begin_event(w, "M", name, pid, tid);
  w.key("args");
  w.begin_object();
  w.field(arg_key, arg_value);
  w.end_object();
  w.end_object();
}

std::string thread_label(std::size_t position, const Finding& finding) {
  return fmt::format("#{}. [{}] {}", position, to_string(finding.severity), finding.id);
}

void instant(JsonWriter& w, std::int64_t pid, std::int64_t tid, std::int64_t ts_ns,
             const Finding& finding) {
  begin_event(w, "i", finding.title, pid, tid);
  w.field("cat", kMarkerCategory);
  w.field("s", "p");
  w.field_us("ts", ts_ns);
  w.key("args");
  w.begin_object();
  w.field("id", finding.id);
  w.field("severity", to_string(finding.severity));
  w.field("bottleneck", to_string(finding.bottleneck));
  w.field("phase", to_string(finding.part));
  w.field("rank", finding.rank);
  w.field("fix", finding.fix);
  w.field("expected_gain_likely_ms", static_cast<double>(finding.gain.likely_ns) / kNsPerMs);
  w.field("expected_gain_bound_ms", static_cast<double>(finding.gain.bound_ns) / kNsPerMs);
  w.field("expected_gain_likely_percent", finding.gain.likely_share * 100);
  w.field("expected_gain_bound_percent", finding.gain.bound_share * 100);
  w.field("expected_gain_method", finding.gain.method);
  w.end_object();
  w.end_object();
}

void span(JsonWriter& w, std::int64_t pid, std::int64_t tid, const Finding& finding,
          const Evidence& evidence, const EventRefs& refs) {
  begin_event(w, "X", evidence.label + ": " + refs.name, pid, tid);
  w.field("cat", kMarkerCategory);
  w.field_us("ts", refs.first_start_ns);
  w.field_us("dur", refs.last_end_ns - refs.first_start_ns);
  w.key("args");
  w.begin_object();
  w.field("finding", finding.id);
  w.field("value", evidence.value);
  w.field("unit", evidence.unit);
  w.field("count", refs.count);
  w.key("steps");
  w.begin_array();
  for (const std::int64_t step : refs.steps) w.value(step);
  w.end_array();
  w.end_object();
  w.end_object();
}

void finding_events(JsonWriter& w, const Trace& trace, std::int64_t pid, std::size_t position,
                    const Finding& finding) {
  const auto tid = static_cast<std::int64_t>(position);
  metadata(w, "thread_name", pid, tid, "name", thread_label(position, finding));
  metadata(w, "thread_sort_index", pid, tid, "sort_index", tid);
  instant(w, pid, tid, finding_time(trace, finding), finding);
  for (const Evidence& evidence : finding.evidence) {
    for (const EventRefs& refs : evidence.events) {
      if (has_times(refs)) span(w, pid, tid, finding, evidence, refs);
    }
  }
}

}  // namespace

std::int64_t marker_pid(const Trace& trace) {
  std::int64_t largest = 0;
  for (const ThreadInfo& thread : trace.threads) {
    if (const auto pid = numeric_pid(thread)) largest = std::max(largest, *pid);
  }
  // A trace holding the largest int64 pid is not worth a second scheme: share its number.
  return largest == std::numeric_limits<std::int64_t>::max() ? largest : largest + 1;
}

std::string finding_markers_json(const Trace& trace, const Diagnosis& diagnosis) {
  const std::int64_t pid = marker_pid(trace);
  JsonWriter w;
  w.begin_array();
  metadata(w, "process_name", pid, 0, "name", kMarkerProcessName);
  // A sort index below any the profiler writes puts the findings at the top of the view.
  metadata(w, "process_sort_index", pid, 0, "sort_index", -1);
  for (std::size_t i = 0; i < diagnosis.findings.size(); ++i) {
    finding_events(w, trace, pid, i + 1, diagnosis.findings[i]);
  }
  w.end_array();
  const std::string& text = w.text();
  return text.substr(1, text.size() - 2);  // the array's contents
}

}  // namespace stepscope::annotate
