// The HTML page of `stepscope diff --html`: the verdict with its interval, step times of both
// runs, phases side by side, and the tables of what changed. Same page shell as the report.
#include <fmt/format.h>

#include <algorithm>

#include "render/html/html_escape.h"
#include "render/html/page.h"
#include "render/html/svg_chart.h"
#include "stepscope/diff.h"

namespace stepscope {

namespace {

using render::html::BarChart;
using render::html::escape;
using render::html::Series;

constexpr std::size_t kMaxStepsPerSide = 60;

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }

std::string signed_ms(double ns) { return fmt::format("{:+.3f} ms", ns / 1e6); }

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
        "<tr><td>{}</td><td>{}</td><td data-v=\"{}\">{}</td><td data-v=\"{}\">{}</td>"
        "<td data-v=\"{}\">{}</td><td data-v=\"{:.3f}\">{:.2f} → {:.2f}</td></tr>\n",
        escape(k.name), escape(k.kind), k.before_ns, ms(k.before_ns), k.after_ns, ms(k.after_ns),
        k.after_ns - k.before_ns, signed_ms(k.after_ns - k.before_ns), k.after_count,
        k.before_count, k.after_count);
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

std::string ops_table(const DiffResult& d) {
  if (d.ops.empty()) return {};
  std::string rows;
  for (const OpChange& o : d.ops) {
    rows += fmt::format(
        "<tr><td>{}</td><td data-v=\"{}\">{} → {}</td><td data-v=\"{}\">{} → {}</td>"
        "<td data-v=\"{:.3f}\">{:.1f} → {:.1f}</td></tr>\n",
        escape(o.name), o.after_self_cpu_ns - o.before_self_cpu_ns, ms(o.before_self_cpu_ns),
        ms(o.after_self_cpu_ns), o.after_self_device_ns - o.before_self_device_ns,
        ms(o.before_self_device_ns), ms(o.after_self_device_ns), o.after_calls, o.before_calls,
        o.after_calls);
  }
  return fmt::format("<h2>Ops ({} of {}, per step)</h2>\n", d.ops.size(), d.ops_total) +
         "<table class=\"sortable\"><thead><tr><th>op</th><th>self CPU</th><th>self "
         "device</th><th>calls</th></tr></thead><tbody>\n" +
         rows + "</tbody></table>\n";
}

std::string finding_list(std::string_view title, const std::vector<FindingChange>& findings) {
  if (findings.empty()) return {};
  std::string out = fmt::format("<h3>{}</h3>\n<ul>\n", escape(title));
  for (const FindingChange& f : findings) {
    // A finding that saves no time in either run (a memory finding) says so instead of "0.00".
    const std::string gain = f.likely_gain_before_ns <= 0 && f.likely_gain_after_ns <= 0
                                 ? std::string("no time saved")
                                 : fmt::format("likely gain {} → {} per step",
                                               ms(static_cast<double>(f.likely_gain_before_ns)),
                                               ms(static_cast<double>(f.likely_gain_after_ns)));
    out += fmt::format("<li><b>{}</b> (rank {}): {} <span class=\"note\">{}</span></li>\n",
                       escape(f.id), f.rank, escape(f.title), gain);
  }
  return out + "</ul>\n";
}

}  // namespace

std::string render_diff_html(const DiffResult& d) {
  std::string body = fmt::format(
      "<header><h1>stepscope diff</h1><p class=\"meta\">before {} · after {} · stepscope "
      "{}</p></header>\n",
      escape(d.before.path), escape(d.after.path), STEPSCOPE_VERSION);
  body += "<h2>Step time</h2>\n" + verdict_section(d) + steps_chart(d.steps);
  body += phases_chart(d);
  body += "<h2>Findings</h2>\n";
  body += finding_list("Resolved", d.findings_resolved);
  body += finding_list("Introduced", d.findings_introduced);
  body += finding_list("Persisting", d.findings_persisting);
  body += "<h2>Kernels and copies</h2>\n";
  body += kernel_table("Changed most", d.kernels, d.kernels_total);
  body += kernel_table("Appeared", d.kernels_appeared, d.kernels_appeared_total);
  body += kernel_table("Vanished", d.kernels_vanished, d.kernels_vanished_total);
  body += ops_table(d);
  for (const std::string& note : d.notes) body += "<p class=\"note\">" + escape(note) + "</p>\n";
  return render::html::page("stepscope diff: " + d.before.path + " → " + d.after.path, body);
}

}  // namespace stepscope
