// The HTML page of `stepscope diff --html`: the verdict with its interval, step times of both
// runs, phases side by side, and the tables of what changed. Same page shell as the report.
#include <fmt/format.h>

#include <algorithm>

#include "render/html/html_escape.h"
#include "render/html/page.h"
#include "render/html/svg_chart.h"
#include "render/name_cut.h"
#include "stepscope/diff.h"

namespace stepscope {

namespace {

using render::html::BarChart;
using render::html::escape;
using render::html::Series;

constexpr std::size_t kMaxStepsPerSide = 60;
// Kernel names run to hundreds of characters: the table shows the distinguishing head and tail,
// the full name is the cell's tooltip.
constexpr std::size_t kMaxNameCharacters = 90;

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

std::string signed_ms(double ns) { return fmt::format("{:+.3f} ms", ns / 1e6); }

// Named above the verdict: a step-time change between different devices, precisions or batch
// shapes is not the code change's alone.
std::string unlike_section(const std::vector<ConditionChange>& conditions) {
  if (conditions.empty()) return {};
  std::string rows;
  for (const ConditionChange& c : conditions) {
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"note\">{}</td></tr>\n",
                        escape(c.condition), escape(c.before), escape(c.after), escape(c.source));
  }
  return "<div class=\"verdict unlike\"><p class=\"bottleneck\">Not like for like</p>"
         "<p>The runs differ in conditions that change step time by themselves: the change below "
         "is not the code change's alone, and no predicted gain is checked against it.</p>\n"
         "<table><thead><tr><th>condition</th><th>before</th><th>after</th><th>read from</th>"
         "</tr></thead><tbody>\n" +
         rows + "</tbody></table></div>\n";
}

std::string verdict_section(const DiffResult& d) {
  const StepComparison& s = d.steps;
  const bool worse = s.verdict == Verdict::kSlower;
  std::string out = fmt::format("<div class=\"verdict {}\"><p class=\"bottleneck\">{}</p>",
                                worse ? "" : "healthy", escape(to_string(s.verdict)));
  if (s.verdict == Verdict::kUndetermined) {
    return out + "<p>" + escape(s.reason) + "</p></div>\n";
  }
  out += fmt::format(
      "<p class=\"figures\">mean step {} → {} ({:+.1f} %, {:.0f} % interval {:+.1f} % … "
      "{:+.1f} %); median {} → {}; {} → {} kept steps</p>",
      ms(s.before_mean_ns), ms(s.after_mean_ns), s.change_share * 100, s.confidence * 100,
      (s.ratio_low - 1) * 100, (s.ratio_high - 1) * 100, ms(s.before_median_ns),
      ms(s.after_median_ns), s.before.durations_ns.size(), s.after.durations_ns.size());
  out += fmt::format(
      "<p class=\"note\">Bootstrap of the ratio of mean step times ({} resamples, "
      "seed {}); {}.</p></div>\n",
      s.resamples, s.seed, escape(s.before.source));
  return out;
}

// Both runs' step times on one axis: the before steps, then the after steps.
std::string steps_chart(const StepComparison& s) {
  std::vector<std::string> categories;
  Series before{"before", "#9d9d9d", {}};
  Series after{"after", "#4c78a8", {}};
  auto add = [&](const std::vector<std::int64_t>& durations, const char* prefix, bool is_after) {
    for (std::size_t i = 0; i < durations.size() && i < kMaxStepsPerSide; ++i) {
      categories.push_back(fmt::format("{}{}", prefix, i + 1));
      before.values.push_back(is_after ? 0.0 : static_cast<double>(durations[i]) / 1e6);
      after.values.push_back(is_after ? static_cast<double>(durations[i]) / 1e6 : 0.0);
    }
  };
  add(s.before.durations_ns, "b", false);
  add(s.after.durations_ns, "a", true);
  return render::html::draw(BarChart{"diff-steps",
                                     "Step times, before then after",
                                     categories,
                                     {before, after},
                                     "ms",
                                     "kept step (b: before, a: after)"});
}

std::string phases_chart(const DiffResult& d) {
  if (!d.phases_applicable || d.phases.empty()) return {};
  BarChart chart{"diff-phases", "Phases per step, before and after", {}, {}, "ms", "phase", true};
  Series before{"before", "#9d9d9d", {}};
  Series after{"after", "#4c78a8", {}};
  for (const PhaseChange& p : d.phases) {
    chart.categories.push_back(p.phase);
    before.values.push_back(p.before_ns / 1e6);
    after.values.push_back(p.after_ns / 1e6);
  }
  chart.series = {before, after};
  return "<h2>Phases (host time per step)</h2>\n" + render::html::draw(chart);
}

std::string kernel_rows(const std::vector<KernelChange>& rows) {
  std::string out;
  for (const KernelChange& k : rows) {
    out += fmt::format(
        "<tr><td title=\"{}\">{}</td><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>"
        "<td data-v=\"{}\">{}</td><td data-v=\"{:.3f}\">{:.2f} → {:.2f}</td></tr>\n",
        escape(k.name), escape(render::shorten_name(k.name, kMaxNameCharacters)), escape(k.kind),
        k.before_ns, ms(k.before_ns), k.after_ns, ms(k.after_ns), k.after_ns - k.before_ns,
        signed_ms(k.after_ns - k.before_ns), k.after_count, k.before_count, k.after_count);
  }
  return out;
}

std::string kernel_table(std::string_view title, const std::vector<KernelChange>& rows,
                         std::size_t total) {
  if (rows.empty()) return {};
  return fmt::format("<h3>{} ({} of {})</h3>\n", escape(title), rows.size(), total) +
         "<table class=\"sortable\"><thead><tr><th>name</th><th>kind</th><th>before per "
         "step</th><th>after per step</th><th>change</th><th>count per step</th></tr></thead>"
         "<tbody>\n" +
         kernel_rows(rows) + "</tbody></table>\n";
}

// One figure per column (before, after, change), numbers right-aligned: "223.917 ms →
// 181.782 ms" in one cell was hard to scan down. Device columns only where some op has device time.
std::string ops_table(const DiffResult& d) {
  if (d.ops.empty()) return {};
  const bool device = std::any_of(d.ops.begin(), d.ops.end(), [](const OpChange& o) {
    return o.before_self_device_ns > 0 || o.after_self_device_ns > 0;
  });
  auto cells = [](double before, double after) {
    return fmt::format(
        "<td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>", before,
        ms(before), after, ms(after), after - before, signed_ms(after - before));
  };
  std::string rows;
  for (const OpChange& o : d.ops) {
    rows +=
        "<tr><td>" + escape(o.name) + "</td>" + cells(o.before_self_cpu_ns, o.after_self_cpu_ns);
    if (device) rows += cells(o.before_self_device_ns, o.after_self_device_ns);
    rows += fmt::format("<td data-v=\"{0}\">{0:.1f}</td><td data-v=\"{1}\">{1:.1f}</td></tr>\n",
                        o.before_calls, o.after_calls);
  }
  std::string header =
      "<th>op</th><th class=\"num\">self CPU before</th><th class=\"num\">after</th>"
      "<th class=\"num\">change</th>";
  if (device) {
    header +=
        "<th class=\"num\">self device before</th><th class=\"num\">after</th>"
        "<th class=\"num\">change</th>";
  }
  header += "<th class=\"num\">calls before</th><th class=\"num\">after</th>";
  return fmt::format("<h2>Ops ({} of {}, per step)</h2>\n", d.ops.size(), d.ops_total) +
         "<table class=\"sortable ops\"><thead><tr>" + header + "</tr></thead><tbody>\n" + rows +
         "</tbody></table>\n";
}

// "exposed communication per step: 14.653 → 9.210 ms/step", the sides that have the figure.
std::string figure_text(const FindingFigure& figure) {
  if (figure.label.empty() || (!figure.before && !figure.after)) return {};
  std::string values;
  if (figure.before) values += fmt::format("{:.3f}", *figure.before);
  if (figure.before && figure.after) values += " → ";
  if (figure.after) values += fmt::format("{:.3f}", *figure.after);
  return fmt::format("<span class=\"figures\">{}: {} {}</span>", escape(figure.label), values,
                     escape(figure.unit));
}

// A finding that saves no time (a memory finding) says so instead of "likely gain 0.000 ms".
std::string side_text(const std::string& severity, std::int64_t likely_gain_ns) {
  if (likely_gain_ns <= 0) return escape(severity) + ", no time saved";
  return fmt::format("{}, likely gain {} per step", escape(severity),
                     ms(static_cast<double>(likely_gain_ns)));
}

// "time it accounts for: 34.300 → 0.149 ms/step (-99.6 %)": what the finding is judged by.
std::string owned_text(const FindingChange& f) {
  if (f.owned_before_ns <= 0 && f.owned_after_ns <= 0) return {};
  const double before_ms = static_cast<double>(f.owned_before_ns) / 1e6;
  const double after_ms = static_cast<double>(f.owned_after_ns) / 1e6;
  std::string values;
  if (f.severity_after.empty()) {
    values = fmt::format("{:.3f} ms/step, gone after", before_ms);
  } else if (f.severity_before.empty()) {
    values = fmt::format("{:.3f} ms/step", after_ms);
  } else {
    values = fmt::format("{:.3f} → {:.3f} ms/step", before_ms, after_ms);
    if (f.owned_before_ns > 0)
      values += fmt::format(" ({:+.1f} %)", (after_ms / before_ms - 1) * 100);
  }
  return "<span class=\"figures\">time it accounts for: " + values + "</span><br>";
}

std::string finding_list(std::string_view title, const std::vector<FindingChange>& findings) {
  if (findings.empty()) return {};
  std::string out = fmt::format("<h3>{}</h3>\n<ul class=\"findings\">\n", escape(title));
  for (const FindingChange& f : findings) {
    std::string sides;
    if (!f.severity_before.empty()) {
      sides += "before: " + side_text(f.severity_before, f.likely_gain_before_ns);
    }
    if (!f.severity_after.empty()) {
      sides += (sides.empty() ? "" : " → ") + std::string("after: ") +
               side_text(f.severity_after, f.likely_gain_after_ns);
    }
    out += fmt::format(
        "<li><b>{}</b> (rank {}): {}<br>{}{}<br><span class=\"note\">{}</span></li>\n",
        escape(f.id), f.rank, escape(f.title), owned_text(f), figure_text(f.figure), sides);
  }
  return out + "</ul>\n";
}

std::string findings_section(const DiffResult& d) {
  std::string out = "<h2>Findings</h2>\n";
  if (d.findings_resolved.empty() && d.findings_improved.empty() && d.findings_introduced.empty() &&
      d.findings_persisting.empty()) {
    return out + "<p class=\"note\">Neither run has a finding.</p>\n";
  }
  out += fmt::format(
      "<p class=\"note\">Judged by the time each finding accounts for per step: resolved when "
      "gone or below {:.0f} % of its time before, improved when at most {:.0f} % remains, "
      "persisting otherwise.</p>\n",
      kFindingResolvedShare * 100, kFindingImprovedShare * 100);
  out += finding_list("Resolved", d.findings_resolved);
  out += finding_list("Improved", d.findings_improved);
  out += finding_list("Introduced", d.findings_introduced);
  out += finding_list("Persisting", d.findings_persisting);
  return out;
}

// Only where a side has device activity: a CPU-only pair has no kernels to compare.
std::string kernels_section(const DiffResult& d) {
  if (d.kernels.empty() && d.kernels_appeared.empty() && d.kernels_vanished.empty()) return {};
  return "<h2>Kernels and copies</h2>\n" +
         kernel_table("Changed most", d.kernels, d.kernels_total) +
         kernel_table("Appeared", d.kernels_appeared, d.kernels_appeared_total) +
         kernel_table("Vanished", d.kernels_vanished, d.kernels_vanished_total);
}

}  // namespace

std::string render_diff_html(const DiffResult& d) {
  std::string body = fmt::format(
      "<header><h1>stepscope diff</h1><p class=\"meta\">before {} · after {} · stepscope "
      "{}</p></header>\n",
      escape(d.before.path), escape(d.after.path), STEPSCOPE_VERSION);
  body += unlike_section(d.unlike_conditions);
  body += "<h2>Step time</h2>\n" + verdict_section(d) + steps_chart(d.steps);
  body += phases_chart(d);
  body += findings_section(d);
  body += kernels_section(d);
  body += ops_table(d);
  for (const std::string& note : d.notes) body += "<p class=\"note\">" + escape(note) + "</p>\n";
  return render::html::page("stepscope diff: " + d.before.path + " → " + d.after.path, body);
}

}  // namespace stepscope
