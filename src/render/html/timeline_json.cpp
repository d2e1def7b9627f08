#include "render/html/timeline_json.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <limits>

#include "render/html/timeline_colors.h"
#include "render/json_writer.h"

namespace stepscope::render::html {

namespace {

constexpr std::array<EventClass, kEventClassCount> kClasses = {
    EventClass::kKernel,  EventClass::kMemcpy,
    EventClass::kMemset,  EventClass::kAcceleratorKernel,
    EventClass::kGpuSync, EventClass::kGpuAnnotation,
    EventClass::kOp,      EventClass::kAnnotation,
    EventClass::kRuntime, EventClass::kDriver,
    EventClass::kPython,  EventClass::kProfilerSpan,
    EventClass::kOther};

template <typename Items, typename Write>
void append_array(std::string& out, const Items& items, Write&& write) {
  out += '[';
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += ',';
    first = false;
    write(item);
  }
  out += ']';
}

// Up to 20,000 events of twelve numbers each, with the format compiled (a format string parsed
// at run time for every event was half of the page's instructions) and each row written into a
// buffer on the stack, then appended once (writing through a back inserter grew the page once
// per number: a seventh of the page's instructions).
void append_events(std::string& out, const TimelineData& data) {
  // Twelve numbers of at most 20 characters (64-bit), eleven commas and two brackets.
  constexpr std::size_t kRowBytes = 12 * 20 + 13;
  append_array(out, data.events, [&](const TimelineEvent& e) {
    char row[kRowBytes];
    const char* end = fmt::format_to(row, FMT_COMPILE("[{},{},{},{},{},{},{},{},{},{},{},{}]"),
                                     e.lane, e.row, e.start_ns - data.origin_ns, e.dur_ns, e.name,
                                     static_cast<int>(e.event_class), e.step, e.phase, e.op,
                                     e.launch, e.frame, e.module);
    out.append(row, static_cast<std::size_t>(end - row));
  });
}

void append_findings(std::string& out, const TimelineData& data) {
  append_array(out, data.findings, [&](const TimelineFinding& f) {
    out += fmt::format("{{\"index\":{},\"id\":", f.index);
    append_json_string(out, f.id);
    out += ",\"events\":";
    append_array(out, f.events, [&](std::uint32_t k) {
      char digits[std::numeric_limits<std::uint32_t>::digits10 + 1];
      out.append(digits, fmt::format_to(digits, FMT_COMPILE("{}"), k));
    });
    out += ",\"spans\":";
    append_array(out, f.spans, [&](const std::pair<std::int64_t, std::int64_t>& s) {
      out += fmt::format("[{},{}]", s.first - data.origin_ns, s.second - data.origin_ns);
    });
    out += '}';
  });
}

}  // namespace

void append_timeline_json(std::string& out, const TimelineData& data) {
  // Sized once: an event row is at most about 100 bytes, and growing a page of a megabyte by
  // doubling copies it several times. The page's charts that follow fit in what is left over.
  constexpr std::size_t kRowBytes = 100;
  constexpr std::size_t kFixedBytes = 4096;
  std::size_t string_bytes = 0;
  for (const std::string& text : data.strings) string_bytes += text.size() + 3;
  out.reserve(out.size() + kFixedBytes + string_bytes + kRowBytes * data.events.size());
  fmt::format_to(
      std::back_inserter(out),
      "{{\"rank\":{},\"origin_ns\":{},\"span_ns\":{},\"shown\":{},\"candidates\":{},\"lanes\":",
      data.rank, data.origin_ns, data.end_ns - data.origin_ns, data.events.size(),
      data.candidate_events);
  append_array(out, data.lanes, [&](const TimelineLane& lane) {
    out += '[';
    append_json_string(out, lane.label);
    out += fmt::format(",{},{}]", lane.device ? 1 : 0, lane.rows);
  });
  out += ",\"strings\":";
  append_array(out, data.strings, [&](const std::string& s) { append_json_string(out, s); });
  out += ",\"classes\":";
  append_array(out, kClasses, [&](EventClass c) { append_json_string(out, to_string(c)); });
  out += ",\"class_colors\":";
  append_array(out, kClassColors, [&](std::string_view c) { append_json_string(out, c); });
  out += ",\"phase_colors\":";
  append_array(out, kPhaseColors, [&](std::string_view c) { append_json_string(out, c); });
  out += ",\"highlight_color\":";
  append_json_string(out, kHighlightColor);
  out += ",\"phase_names\":";
  append_array(out, std::vector<int>{0, 1, 2, 3, 4},
               [&](int p) { append_json_string(out, to_string(static_cast<Phase>(p))); });
  out += ",\"events\":";
  append_events(out, data);
  out += ",\"steps\":";
  append_array(out, data.steps, [&](const TimelineStep& s) {
    out += fmt::format("[{},{},{},\"{}\"]", s.number, s.start_ns - data.origin_ns,
                       s.end_ns - data.origin_ns, to_string(s.why));
  });
  out += ",\"phases\":";
  append_array(out, data.phases, [&](const TimelinePhaseSpan& p) {
    out +=
        fmt::format("[{},{},{}]", p.phase, p.start_ns - data.origin_ns, p.end_ns - data.origin_ns);
  });
  out += ",\"findings\":";
  append_findings(out, data);
  out += ",\"critical_path\":";
  append_array(out, data.critical_path, [&](std::uint32_t k) {
    char digits[std::numeric_limits<std::uint32_t>::digits10 + 1];
    out.append(digits, fmt::format_to(digits, FMT_COMPILE("{}"), k));
  });
  out += '}';
}

}  // namespace stepscope::render::html
