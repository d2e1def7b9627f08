// The self-contained HTML report of `stepscope report`: the verdict and findings first, then the
// pictures. One file, inline CSS and SVG, and a few lines of script only to sort tables (and to
// record script errors, which the browser test reads back).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "diagnosis/host_timeline.h"
#include "render/dropped_data.h"
#include "render/gain_wording.h"
#include "render/headroom_line.h"
#include "render/html/html_escape.h"
#include "render/html/page.h"
#include "render/html/roofline_chart.h"
#include "render/html/svg_chart.h"
#include "render/html/timeline_section.h"
#include "render/json/memory_curve_points.h"
#include "render/text_format.h"
#include "report/report_model.h"
#include "stepscope/job/job_report.h"

namespace stepscope {

namespace {

using render::html::BarChart;
using render::html::BusyStrips;
using render::html::escape;
using render::html::escape_name;
using render::html::LineChart;
using render::html::RankedBars;
using render::html::Series;

constexpr std::size_t kMaxStepBars = 120;

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string format_ms(double value) { return fmt::format("{:.3f} ms", value); }

// Kept steps, grouped into at most kMaxStepBars bars (means per group) so that a long run
// stays readable.
struct StepGroups {
  std::vector<std::string> labels;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end) into the rows
};

StepGroups group_steps(const std::vector<std::int64_t>& numbers) {
  StepGroups groups;
  const std::size_t n = numbers.size();
  const std::size_t per = std::max<std::size_t>(1, (n + kMaxStepBars - 1) / kMaxStepBars);
  for (std::size_t begin = 0; begin < n; begin += per) {
    const std::size_t end = std::min(n, begin + per);
    groups.ranges.emplace_back(begin, end);
    groups.labels.push_back(end - begin == 1
                                ? fmt::format("#{}", numbers[begin])
                                : fmt::format("#{}–{}", numbers[begin], numbers[end - 1]));
  }
  return groups;
}

template <typename Value>
std::vector<double> group_means(const StepGroups& groups, const std::vector<Value>& rows,
                                double (*get)(const Value&)) {
  std::vector<double> out;
  for (const auto& [begin, end] : groups.ranges) {
    double sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += get(rows[i]);
    out.push_back(sum / static_cast<double>(end - begin));
  }
  return out;
}

std::string note_grouped(const StepGroups& groups, std::size_t steps) {
  if (groups.ranges.size() == steps) return {};
  return fmt::format(
      "<p class=\"note\">{} kept steps, drawn as {} bars of consecutive steps "
      "(the mean of each group).</p>\n",
      steps, groups.ranges.size());
}

std::string step_time_chart(const RankAnalyses& a) {
  const std::vector<const Step*> kept = a.steps.kept();
  if (kept.empty()) return "<p class=\"note\">No kept profiler steps.</p>\n";
  std::vector<std::int64_t> numbers;
  numbers.reserve(kept.size());
  for (const Step* step : kept) numbers.push_back(step->number);
  const StepGroups groups = group_steps(numbers);
  const std::vector<double> values = group_means<const Step*>(
      groups, kept, [](const Step* const& s) { return ms(s->duration_ns()); });
  const Statistics& st = a.step_time.duration_ns;
  std::string out = fmt::format(
      "<p class=\"figures\">mean {} · p50 {} · p95 {} · p99 {} · max {} over {} kept steps</p>\n",
      format_ms(st.mean / 1e6), format_ms(st.p50 / 1e6), format_ms(st.p95 / 1e6),
      format_ms(st.p99 / 1e6), format_ms(st.max / 1e6), st.count);
  out += render::html::draw(BarChart{"step-time",
                                     "Step time per kept step",
                                     groups.labels,
                                     {Series{"step time", "#4c78a8", values}},
                                     "ms",
                                     "step"});
  return out + note_grouped(groups, kept.size());
}

const char* role_color(StepRole role) {
  static constexpr const char* kColors[] = {"#4c78a8", "#f58518", "#e45756", "#72b7b2",
                                            "#54a24b", "#eeca3b", "#b279a2", "#9d755d"};
  return kColors[static_cast<std::size_t>(role)];
}

// Device roles (kernel, memcpy, memset, communication) are always zero on a CPU-only rank: their
// legend entries would only suggest a GPU that is not there.
bool device_role(StepRole role) { return static_cast<std::size_t>(role) <= 3; }

std::string step_breakdown_chart(const StepBreakdownResult& b, bool gpu) {
  if (!b.applicable || b.steps.empty()) return {};
  std::vector<std::int64_t> numbers;
  for (const StepBreakdownRow& row : b.steps) numbers.push_back(row.step_number);
  const StepGroups groups = group_steps(numbers);
  std::vector<Series> series;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    const auto role = static_cast<StepRole>(r);
    if (!gpu && device_role(role)) continue;
    Series s{std::string(to_string(role)), role_color(role), {}};
    for (const auto& [begin, end] : groups.ranges) {
      double sum = 0;
      for (std::size_t i = begin; i < end; ++i) sum += ms(b.steps[i].roles[role]);
      s.values.push_back(sum / static_cast<double>(end - begin));
    }
    series.push_back(std::move(s));
  }
  return "<h3>Step-time breakdown</h3>\n" +
         render::html::draw(BarChart{"step-breakdown", "Step-time breakdown per step",
                                     groups.labels, std::move(series), "ms", "step"}) +
         note_grouped(groups, b.steps.size());
}

std::string phases_chart(const PhasesResult& p) {
  if (!p.applicable || p.steps.empty()) return {};
  static constexpr const char* kColors[] = {"#4c78a8", "#f58518", "#54a24b", "#eeca3b", "#bab0ac"};
  std::vector<std::int64_t> numbers;
  for (const StepPhases& row : p.steps) numbers.push_back(row.step_number);
  const StepGroups groups = group_steps(numbers);
  std::vector<Series> series;
  for (std::size_t k = 0; k < kPhaseCount; ++k) {
    const auto phase = static_cast<Phase>(k);
    Series s{std::string(to_string(phase)), kColors[k], {}};
    for (const auto& [begin, end] : groups.ranges) {
      double sum = 0;
      for (std::size_t i = begin; i < end; ++i) sum += ms(p.steps[i].times.host(phase));
      s.values.push_back(sum / static_cast<double>(end - begin));
    }
    series.push_back(std::move(s));
  }
  return "<h3>Phases (host time)</h3>\n" +
         render::html::draw(BarChart{"phases", "Phases per step", groups.labels, std::move(series),
                                     "ms", "step"}) +
         note_grouped(groups, p.steps.size());
}

// What a total over the window W is divided by to read per step: the kept steps, the same steps
// the diagnosis speaks of; "the window" when there are none.
struct WindowSteps {
  std::size_t kept = 0;
  [[nodiscard]] std::string total_over() const {
    return kept == 0 ? std::string("total over the window")
                     : fmt::format("total over {} kept step{}", kept, kept == 1 ? "" : "s");
  }
};

std::string gpu_temporal_chart(const GpuTemporalResult& g, WindowSteps window) {
  if (!g.applicable || g.devices.empty()) return {};
  const double per = static_cast<double>(std::max<std::size_t>(1, window.kept));
  std::vector<std::string> devices;
  Series compute{"compute", "#4c78a8", {}};
  Series communication{"exposed communication", "#72b7b2", {}};
  Series memory{"exposed memory", "#f58518", {}};
  Series idle{"idle", "#d0d0d0", {}};
  for (const DeviceTemporal& d : g.devices) {
    devices.push_back(fmt::format("GPU {}", d.device));
    compute.values.push_back(ms(d.compute_ns) / per);
    communication.values.push_back(ms(d.communication_only_ns) / per);
    memory.values.push_back(ms(d.memory_only_ns) / per);
    idle.values.push_back(ms(d.idle_ns) / per);
  }
  const std::string title = window.kept == 0
                                ? std::string("GPU time over the window (no kept steps)")
                                : fmt::format("GPU time per step (mean of {} kept step{})",
                                              window.kept, window.kept == 1 ? "" : "s");
  return "<h3>" + title + "</h3>\n" +
         render::html::draw(BarChart{"gpu-temporal",
                                     title,
                                     devices,
                                     {compute, communication, memory, idle},
                                     "ms",
                                     "device"});
}

std::string busy_chart(const BusyTimelineResult& busy) {
  if (!busy.applicable) return {};
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  for (const DeviceBusyTimeline& d : busy.devices) {
    rows.emplace_back(fmt::format("GPU {}", d.device), d.busy_share);
  }
  return fmt::format(
             "<h3>GPU busy over time</h3>\n<p class=\"note\">Each column is {} of the "
             "window; darker is busier.</p>\n",
             format_ms(ms(busy.bin_ns))) +
         render::html::draw(BusyStrips{"gpu-busy", "GPU busy over time", std::move(rows),
                                       ms(busy.window.length())});
}

std::string top_kernels_chart(const KernelBreakdownResult& k, int top, WindowSteps window) {
  if (!k.applicable) return {};
  std::string out;
  for (const DeviceKernels& d : k.devices) {
    std::vector<std::pair<std::string, double>> rows;
    for (const KernelRow& row : d.top) {
      if (rows.size() >= static_cast<std::size_t>(top)) break;
      rows.emplace_back(row.name, ms(row.total_ns));
    }
    if (rows.empty()) continue;
    const std::string title =
        fmt::format("Top kernels, GPU {} ({})", d.device, window.total_over());
    out += "<h3>" + escape(title) + "</h3>\n";
    out += render::html::draw(RankedBars{fmt::format("top-kernels-{}", d.device), title,
                                         std::move(rows), "ms", "#4c78a8"});
  }
  return out;
}

// Rows a page's op table holds at most, whatever --top asks: the page stays under its size
// bound with any trace.
constexpr std::size_t kMaxRows = 1000;

std::string operators_section(const OperatorsResult& ops, int top, WindowSteps window, bool gpu) {
  if (!ops.applicable || ops.rows.empty()) return {};
  const bool device = ops.attributed_device_ns > 0;
  // Ops are counted over the kept steps (ops.scope), else over the whole trace.
  const std::string over =
      ops.scope ? window.total_over() : std::string("total over the whole trace");
  std::vector<std::pair<std::string, double>> bars;
  std::string rows;
  const std::size_t shown = std::min({ops.rows.size(), static_cast<std::size_t>(top), kMaxRows});
  for (std::size_t i = 0; i < shown; ++i) {
    const OperatorRow& r = ops.rows[i];
    bars.emplace_back(r.name, ms(device ? r.self_device_ns : r.self_cpu_ns));
    rows += fmt::format("<tr><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>",
                        escape_name(r.name), r.calls, r.calls, ms(r.self_cpu_ns),
                        format_ms(ms(r.self_cpu_ns)));
    if (gpu) {
      rows += fmt::format("<td data-v=\"{}\">{}</td>", ms(r.self_device_ns),
                          format_ms(ms(r.self_device_ns)));
    }
    rows += "</tr>\n";
  }
  const std::string title =
      fmt::format("Top ops by self {} time ({})", device ? "device" : "CPU", over);
  std::string out = "<h3>" + escape(title) + "</h3>\n";
  out += render::html::draw(RankedBars{"top-ops", title, std::move(bars), "ms", "#54a24b"});
  out += "<table class=\"sortable\"><thead><tr><th>op</th><th>calls</th><th>self CPU</th>" +
         std::string(gpu ? "<th>self device</th>" : "") + "</tr></thead><tbody>\n" + rows +
         "</tbody></table>\n";
  if (shown < std::min(ops.rows.size(), static_cast<std::size_t>(top))) {
    out += fmt::format(
        "<p class=\"note\">The first {} ops of {}: a page keeps its size bounded; the JSON "
        "report (--json) lists every op.</p>\n",
        shown, ops.rows.size());
  }
  return out;
}

// A line at the start of each kept step and at the end of the last: the memory curve's cycles
// read against the steps. Memory records are host events, so host times.
std::vector<render::html::Marker> step_markers(const StepsResult& steps, std::int64_t origin_ns) {
  std::vector<render::html::Marker> markers;
  const std::vector<const Step*> kept = steps.kept();
  // Past this many, the lines would shade the plot grey rather than mark anything.
  constexpr std::size_t kMaxStepMarkers = 100;
  if (kept.size() > kMaxStepMarkers) return markers;
  for (const Step* step : kept) {
    markers.push_back(
        {ms(step->host_start_ns - origin_ns), fmt::format("step #{} starts", step->number)});
  }
  if (!kept.empty()) {
    markers.push_back({ms(kept.back()->host_end_ns - origin_ns),
                       fmt::format("step #{} ends", kept.back()->number)});
  }
  return markers;
}

std::string memory_chart(const MemoryCurveResult& memory, const StepsResult& steps) {
  if (!memory.applicable) return {};
  std::string out;
  for (const DeviceMemory& d : memory.devices) {
    if (d.curve.empty()) continue;
    const bool gib =
        d.peak_allocated >= (std::int64_t{1} << 30) || d.peak_reserved >= (std::int64_t{1} << 30);
    const double scale = gib ? static_cast<double>(1 << 30) : static_cast<double>(1 << 20);
    LineChart chart{"memory-" + d.label,
                    "Memory over time, " + d.label,
                    {},
                    {},
                    "time (ms)",
                    gib ? "GiB" : "MiB",
                    true,
                    step_markers(steps, memory.origin_ns)};
    Series allocated{"allocated", "#4c78a8", {}};
    Series reserved{"reserved", "#f58518", {}};
    for (std::size_t i : render::curve_points_to_draw(d, 1000)) {
      const MemoryPoint& p = d.curve[i];
      chart.x.push_back(ms(p.time_ns - memory.origin_ns));
      allocated.values.push_back(static_cast<double>(p.allocated) / scale);
      reserved.values.push_back(static_cast<double>(std::max<std::int64_t>(0, p.reserved)) / scale);
    }
    chart.series = {allocated};
    if (d.peak_reserved > 0) chart.series.push_back(reserved);
    const char* unit = gib ? "GiB" : "MiB";
    // The CPU allocator reserves nothing: a "peak reserved 0.00 MiB" would read as a GPU figure.
    const std::string reserved_text =
        d.peak_reserved > 0 ? fmt::format(" · peak reserved {:.2f} {}",
                                          static_cast<double>(d.peak_reserved) / scale, unit)
                            : std::string();
    out += fmt::format(
        "<h3>Memory over time, {}</h3>\n<p class=\"figures\">peak allocated {:.2f} {}{} · never "
        "freed in the trace {:.2f} {}</p>\n",
        escape(d.label), static_cast<double>(d.peak_allocated) / scale, unit, reserved_text,
        static_cast<double>(d.never_freed_bytes) / scale, unit);
    out += render::html::draw(chart);
    if (!chart.markers.empty()) {
      out += "<p class=\"note\">Dashed lines: the start of each kept step.</p>\n";
    }
  }
  return out;
}

std::string events_text(const EventRefs& refs) {
  std::string out = fmt::format("{} × {}", refs.count, escape(refs.name));
  if (!refs.steps.empty()) {
    out += fmt::format(", steps #{}", refs.steps.front());
    if (refs.steps.size() > 1) out += fmt::format("–#{}", refs.steps.back());
  }
  return out;
}

std::string finding_card(const Finding& f, std::size_t index) {
  std::string evidence;
  for (const Evidence& e : f.evidence) {
    std::string events;
    for (std::size_t i = 0; i < e.events.size() && i < 3; ++i) {
      events += (i > 0 ? "<br>" : "") + events_text(e.events[i]);
    }
    evidence += fmt::format("<tr><td>{}</td><td class=\"num\">{} {}</td><td>{}</td></tr>\n",
                            escape(e.label), render::format_evidence_value(e.value), escape(e.unit),
                            events);
  }
  return fmt::format(
      "<div class=\"finding {}\" data-finding=\"{}:{}\"><h3>{}. <span class=\"badge\">{}</span> "
      "{}</h3>\n"
      "<p class=\"meta\">{} · {} · rank {}</p>\n"
      "<table class=\"evidence\"><thead><tr><th>evidence</th><th>value</th><th>events it rests "
      "on</th></tr></thead><tbody>\n{}</tbody></table>\n"
      "<p><b>Fix:</b> {}</p>\n<p><b>Expected gain:</b> {}. "
      "<span class=\"note\">{}</span></p></div>\n",
      escape(to_string(f.severity)), f.rank, index - 1, index, escape(to_string(f.severity)),
      escape(f.title), escape(to_string(f.bottleneck)), escape(to_string(f.part)), f.rank, evidence,
      escape(f.fix),
      render::saves_no_time(f.gain)
          ? escape(render::no_time_saved_wording(f))
          : fmt::format("{} per step likely ({}), up to {} ({})", format_ms(ms(f.gain.likely_ns)),
                        render::format_percent(f.gain.likely_share), format_ms(ms(f.gain.bound_ns)),
                        render::format_percent(f.gain.bound_share)),
      escape(f.gain.method));
}

std::string diagnosis_section(const Diagnosis& d, int top) {
  std::string out = fmt::format("<div class=\"verdict {}\"><p class=\"bottleneck\">{}</p><p>{}</p>",
                                escape(to_string(d.bottleneck)), escape(to_string(d.bottleneck)),
                                escape(d.summary));
  if (!d.window.empty()) out += "<p class=\"note\">steps: " + escape(d.window) + "</p>";
  if (!d.dominant_operations.empty()) {
    out += "<p class=\"note\">dominated by: ";
    for (const std::string& name : d.dominant_operations) out += escape(name) + "; ";
    out += "</p>";
  }
  for (const DeviceHeadroom& device : d.memory_headroom) {
    out += "<p class=\"headroom\">" +
           render::headroom_line(device, [](std::string_view text) { return escape(text); }) +
           "</p>";
  }
  out += "</div>\n";
  for (std::size_t i = 0; i < d.findings.size() && i < static_cast<std::size_t>(top); ++i) {
    out += finding_card(d.findings[i], i + 1);
  }
  return out;
}

// The GPU-busy column only where some rank ran on a GPU: CPU-only jobs have no such figure.
std::string ranks_table(const Report& report) {
  const bool gpu = std::any_of(report.ranks.begin(), report.ranks.end(),
                               [](const RankReport& r) { return !is_cpu_only(*r.analyses.trace); });
  std::string rows;
  for (const RankReport& rank : report.ranks) {
    const RankAnalyses& a = rank.analyses;
    const Statistics& st = a.step_time.duration_ns;
    double busy = 0;
    for (const DeviceTemporal& d : a.gpu_temporal.devices)
      busy = std::max(busy, d.share(d.busy_ns));
    const std::string busy_cell =
        gpu ? fmt::format("<td data-v=\"{}\">{}</td>", busy, render::format_percent(busy)) : "";
    rows += fmt::format(
        "<tr><td data-v=\"{}\">{}</td><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>"
        "<td data-v=\"{}\">{}</td>{}<td>{}</td></tr>\n",
        a.trace->rank, a.trace->rank, escape(a.trace->source_path), st.count, st.count,
        st.mean / 1e6, format_ms(st.mean / 1e6), st.p95 / 1e6, format_ms(st.p95 / 1e6), busy_cell,
        escape(to_string(rank.diagnosis.bottleneck)));
  }
  return "<h2>Ranks</h2>\n<table class=\"sortable\" id=\"ranks\"><thead><tr><th>rank</th>"
         "<th>file</th><th>kept steps</th><th>mean step</th><th>p95 step</th>" +
         std::string(gpu ? "<th>GPU busy (busiest device)</th>" : "") +
         "<th>bottleneck</th></tr></thead><tbody>\n" + rows + "</tbody></table>\n";
}

void append_rank_section(std::string& out, const RankReport& rank, int top, bool several) {
  const RankAnalyses& a = rank.analyses;
  out += fmt::format("<section class=\"rank\" id=\"rank-{}\"><h2>Rank {} · {}</h2>\n",
                     a.trace->rank, a.trace->rank, escape(a.trace->source_path));
  if (several) out += diagnosis_section(rank.diagnosis, top);
  for (const std::string& line : render::dropped_events(*a.trace)) {
    out += "<p class=\"note\">" + escape(line) + "</p>\n";
  }
  render::html::append_timeline_section(out, a, rank.diagnosis, several);
  const bool gpu = !is_cpu_only(*a.trace);
  const WindowSteps window{a.steps.kept().size()};
  out += "<h3>Step time</h3>\n" + step_time_chart(a);
  for (const std::string& note : a.steps.notes) {
    out += "<p class=\"note\">note: " + escape(note) + "</p>\n";
  }
  out += step_breakdown_chart(a.step_breakdown, gpu);
  out += phases_chart(a.phases);
  out += gpu_temporal_chart(a.gpu_temporal, window);
  out += busy_chart(a.busy_timeline);
  out += top_kernels_chart(a.kernels, top, window);
  out += operators_section(a.operators, top, window, gpu);
  out += render::html::roofline_section(a.compute_efficiency, top);
  out += memory_chart(a.memory, a.steps);
  out += "</section>\n";
}

// With many ranks, the charts of every rank would bury the page: draw rank 0 and the slowest
// ranks; the table lists them all.
constexpr std::size_t kRanksDrawn = 4;

std::vector<const RankReport*> ranks_to_draw(const Report& report) {
  std::vector<const RankReport*> ranks;
  for (const RankReport& rank : report.ranks) ranks.push_back(&rank);
  if (ranks.size() <= kRanksDrawn) return ranks;
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankReport* a, const RankReport* b) {
    return a->analyses.step_time.duration_ns.mean > b->analyses.step_time.duration_ns.mean;
  });
  std::vector<const RankReport*> drawn{&report.ranks.front()};
  for (const RankReport* rank : ranks) {
    if (drawn.size() == kRanksDrawn) break;
    if (rank != drawn.front()) drawn.push_back(rank);
  }
  return drawn;
}

}  // namespace

std::string render_rank_html(const RankReport& rank, int top, bool several) {
  std::string out;
  append_rank_section(out, rank, top, several);
  return out;
}

// Written into one string, page and all: the timeline's data is a megabyte, and each copy of it
// into another string costs fresh pages as well as the copy.
std::string render_html(const Report& report, int top) {
  const bool several = report.ranks.size() > 1;
  std::string html;
  render::html::append_page_head(html, "stepscope report: " + report.request.path);
  html += fmt::format(
      "<header><h1>stepscope report</h1><p class=\"meta\">{} · stepscope {} · mode {} · {} "
      "rank(s)</p></header>\n",
      escape(report.request.path), STEPSCOPE_VERSION,
      escape(to_string(report.request.analysis.mode)), report.input_files.size());
  for (const std::string& note : report.traces.notes) {
    html += "<p class=\"note\">note: " + escape(note) + "</p>\n";
  }
  for (const SkippedFile& skipped : report.traces.skipped) {
    html += "<p class=\"note\">skipped: " + escape(skipped.reason) + "</p>\n";
  }
  if (report.job) html += job::render_job_html_section(*report.job);
  if (!report.rendered.empty()) {
    // The job section's table has every rank; this page holds the detail of the ones kept.
    if (report.rendered.size() < report.input_files.size()) {
      html += fmt::format(
          "<p class=\"note\">{} ranks were analysed one at a time to bound memory; the detail "
          "below is that of rank {} and the ranks that compute longest.</p>\n",
          report.input_files.size(), report.rendered.front().rank);
    }
    for (const RenderedRank& rank : report.rendered) html += rank.html;
  } else if (several) {
    html += ranks_table(report);
  } else if (!report.ranks.empty()) {
    html += "<h2>Diagnosis</h2>\n" + diagnosis_section(report.ranks.front().diagnosis, top);
  }
  const std::vector<const RankReport*> drawn = ranks_to_draw(report);
  if (drawn.size() < report.ranks.size()) {
    html += fmt::format(
        "<p class=\"note\">{} ranks: the charts below are rank {} and the {} "
        "ranks with the slowest mean step; the table above lists every rank.</p>\n",
        report.ranks.size(), report.ranks.front().analyses.trace->rank, drawn.size() - 1);
  }
  for (const RankReport* rank : drawn) append_rank_section(html, *rank, top, several);
  render::html::append_page_tail(html);
  return html;
}

}  // namespace stepscope
