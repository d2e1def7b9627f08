#include "render/html/timeline_section.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/html/html_escape.h"
#include "render/html/timeline_colors.h"
#include "render/html/timeline_json.h"
#include "render/html/timeline_script.h"

namespace stepscope::render::html {

namespace {

// A page of several ranks draws up to four of them (report_html.cpp): they share the budget of
// one, so that the page stays under its size bound (docs/html-report.md).
constexpr std::size_t kRanksOnAPage = 4;

constexpr std::string_view kStyle =
    "<style>.timeline-canvas{background:#fff;border:1px solid #eee;max-height:640px;overflow:auto}"
    ".timeline canvas{display:block;cursor:grab}.timeline-details{margin:0}"
    ".timeline-details{white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace;background:#fff;"
    "border:1px solid #eee;border-top:0;padding:4px 8px;min-height:3.5em;overflow-wrap:anywhere}"
    ".finding.linked{cursor:pointer}.finding.selected{outline:2px solid #d62728}</style>\n";

std::string steps_note(const TimelineData& data) {
  std::string steps;
  for (const TimelineStep& step : data.steps) {
    if (!steps.empty()) steps += ", ";
    steps += fmt::format("{} ({})", step.number, to_string(step.why));
  }
  std::string note =
      steps.empty() ? "showing the events the findings name" : "showing steps " + steps;
  note += fmt::format(" ({} of {} events", data.events.size(), data.candidate_events);
  if (data.events.size() < data.candidate_events) note += "; the longest are kept";
  return note + ")";
}

// The kept steps' critical path (docs/metrics/17-critical-path-and-what-if.md), highlighted like
// a finding's events: the chain that sets the step's length, as the replay of the steps finds it.
std::string path_button(const TimelineData& data) {
  if (data.critical_path.empty()) return "";
  return fmt::format(
      " <button type=\"button\" class=\"timeline-path\" title=\"the chain of events that sets "
      "the step's length, as the replay of the kept steps finds it\">critical path ({} events "
      "shown)</button>",
      data.critical_path.size());
}

std::string legend_entry(std::string_view color, std::string_view label) {
  return fmt::format("<span><i style=\"background:{}\"></i>{}</span>", color, label);
}

// Only the classes drawn: a CPU-only rank's legend would otherwise list kernel, memcpy and
// memset, suggesting a GPU that is not there.
std::string legend(const TimelineData& data) {
  std::string out = "<p class=\"legend\">";
  for (const EventClass c :
       {EventClass::kKernel, EventClass::kMemcpy, EventClass::kMemset, EventClass::kOp,
        EventClass::kAnnotation, EventClass::kRuntime, EventClass::kDriver}) {
    const bool drawn = std::any_of(data.events.begin(), data.events.end(),
                                   [c](const TimelineEvent& e) { return e.event_class == c; });
    if (!drawn) continue;
    out += legend_entry(kClassColors[static_cast<std::size_t>(c)], to_string(c));
  }
  out += legend_entry(kHighlightColor, data.critical_path.empty()
                                           ? "a selected finding's events"
                                           : "a selected finding's events, or the critical path");
  out += "<br>phase bands: ";
  for (std::size_t p = 0; p + 1 < kPhaseCount; ++p) {  // "other" has no band
    out += legend_entry(kPhaseColors[p], to_string(static_cast<Phase>(p)));
  }
  return out + "</p>\n";
}

std::string perfetto_note() {
  return "<p class=\"note\"><b>Open in Perfetto:</b> for every event of the trace, write the "
         "annotated trace (the findings added as markers on a process of their own) with "
         "<code>stepscope report TRACE --annotate annotated.json</code> or <code>stepscope "
         "analyze TRACE --annotate annotated.json</code>, then open ui.perfetto.dev and drop the "
         "file on it (or use <i>Open trace file</i>); chrome://tracing reads it too.</p>\n";
}

}  // namespace

void append_timeline_section(std::string& out, const TimelineData& data) {
  out += "<h3>Timeline</h3>\n";
  if (data.empty()) {
    out +=
        "<p class=\"note\">No timeline: the trace has no kept steps and the findings name no "
        "events.</p>\n";
    out += perfetto_note();
    return;
  }
  const std::string id = fmt::format("timeline-data-{}", data.rank);
  out += kStyle;
  out += fmt::format(
      "<div class=\"timeline\" id=\"timeline-{}\" data-source=\"{}\" data-events=\"{}\" "
      "data-drawn-events=\"0\" data-highlighted=\"0\">\n",
      data.rank, id, data.events.size());
  out += fmt::format(
      "<p class=\"note\">{} · wheel: zoom, drag: pan, click an event to pin its details; "
      "click a finding to highlight its events. Times count from the first event shown. "
      "<button type=\"button\" class=\"timeline-reset\">reset view</button>{}</p>\n",
      escape(steps_note(data)), path_button(data));
  out +=
      "<div class=\"timeline-canvas\"><canvas></canvas></div>\n<pre "
      "class=\"timeline-details\"></pre>\n" +
      legend(data) + "</div>\n";
  out += fmt::format("<script type=\"application/json\" id=\"{}\">", id);
  append_timeline_json(out, data);
  out += "</script>\n<script>";
  out += timeline_script();
  out += "</script>\n";
  out += perfetto_note();
}

void append_timeline_section(std::string& out, const RankAnalyses& analyses,
                             const Diagnosis& diagnosis, bool several) {
  TimelineLimits limits;
  if (several) {
    limits.max_events /= kRanksOnAPage;
    limits.string_budget_bytes /= kRanksOnAPage;
  }
  append_timeline_section(out, select_timeline(analyses, diagnosis, limits));
}

}  // namespace stepscope::render::html
