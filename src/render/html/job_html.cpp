// The job in HTML: the verdict, a rank × step heat map of step time, the collective wait
// picture (which rank everyone waits for) and the collective table. Everything from a trace is
// escaped; the SVG is inline so the page opens offline.
#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "render/gain_wording.h"
#include "render/html/html_escape.h"
#include "render/html/page.h"
#include "stepscope/job/job_report.h"

namespace stepscope::job {

namespace {

using render::html::escape;

std::string ms(double ns) { return fmt::format("{:.2f}", ns / 1e6); }

// White (fastest) to red (slowest) through yellow.
std::string heat_colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const int g = static_cast<int>(235 - 175 * t);
  const int b = static_cast<int>(200 * (1 - t) * (1 - t));
  return fmt::format("rgb(250,{},{})", g, b);
}

// Ranks as rows, steps as columns; past 128 ranks every k-th rank, said so.
std::string heat_map(const JobAnalysis& job) {
  std::vector<const RankSummary*> rows;
  for (const RankSummary& s : job.summaries) rows.push_back(&s);
  if (rows.empty()) return {};
  std::size_t stride = 1;
  while (rows.size() / stride > 128) ++stride;
  std::size_t columns = 0;
  double lo = 0;
  double hi = 0;
  bool first = true;
  for (const RankSummary* s : rows) {
    columns = std::max(columns, s->steps.size());
    for (const SummaryStep& step : s->steps) {
      const auto d = static_cast<double>(step.duration_ns());
      lo = first ? d : std::min(lo, d);
      hi = first ? d : std::max(hi, d);
      first = false;
    }
  }
  if (columns == 0) return "<p class=\"note\">No kept steps: no heat map.</p>\n";
  const int cell_w = std::max(6, std::min(40, static_cast<int>(720 / columns)));
  const int cell_h = 14;
  const int left = 60;
  const std::size_t shown = (rows.size() + stride - 1) / stride;
  std::string svg = fmt::format(
      "<svg class=\"heat\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"step time per "
      "rank and step\">\n",
      left + static_cast<int>(columns) * cell_w + 10, static_cast<int>(shown) * cell_h + 20);
  int y = 0;
  for (std::size_t i = 0; i < rows.size(); i += stride) {
    const RankSummary& s = *rows[i];
    svg += fmt::format("<text x=\"0\" y=\"{}\" font-size=\"11\">rank {}</text>\n", y + 11, s.rank);
    for (std::size_t c = 0; c < s.steps.size(); ++c) {
      const auto d = static_cast<double>(s.steps[c].duration_ns());
      const double t = hi > lo ? (d - lo) / (hi - lo) : 0.0;
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>rank {} step {}: "
          "{} ms</title></rect>\n",
          left + static_cast<int>(c) * cell_w, y, cell_w - 1, cell_h - 1, heat_colour(t), s.rank,
          s.steps[c].number, ms(d));
    }
    y += cell_h;
  }
  svg += "</svg>\n";
  std::string out = "<h2>Step time per rank and step</h2>\n" + svg;
  out += fmt::format("<p class=\"note\">From {} ms (light) to {} ms (red).{}</p>\n", ms(lo), ms(hi),
                     stride > 1 ? fmt::format(" Every {}th rank is drawn.", stride) : "");
  return out;
}

// Who everyone waits for: per rank, how often it arrived last and how long the others waited.
std::string wait_picture(const JobAnalysis& job) {
  if (job.matched.empty()) return {};
  std::map<std::int64_t, std::int64_t> last_count;
  for (const MatchedCollective& m : job.matched) ++last_count[m.last_rank];
  std::int64_t most = 1;
  for (const auto& [rank, count] : last_count) most = std::max(most, count);
  std::string out =
      "<h2>Who everyone waits for</h2>\n<table><tr><th>rank</th><th>last to "
      "arrive (collectives)</th><th></th><th>its own wait (ms/step)</th></tr>\n";
  for (const RankRow& r : job.ranks) {
    const std::int64_t count = last_count.count(r.rank) ? last_count[r.rank] : 0;
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td><svg width=\"200\" height=\"10\"><rect width=\"{}\" "
        "height=\"10\" fill=\"#c0392b\"/></svg></td><td>{}</td></tr>\n",
        r.rank, count, 200 * count / most, ms(r.wait_ns));
  }
  return out + "</table>\n";
}

std::string collective_table_html(const JobAnalysis& job) {
  if (job.collectives.empty()) return {};
  std::string out =
      "<h2>Collectives</h2>\n<table><tr><th>kind</th><th>size (bytes)</th><th>count</th><th>total "
      "(ms)</th><th>transfer (ms)</th><th>wait (ms)</th><th>algbw (GB/s)</th><th>busbw "
      "(GB/s)</th><th>busbw (% of link)</th></tr>\n";
  for (const CollectiveRow& c : job.collectives) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
        "</td><td>{}</td></tr>\n",
        escape(c.kind),
        c.min_bytes < 0 ? std::string("unknown") : fmt::format("{}–{}", c.min_bytes, c.max_bytes),
        c.count, ms(static_cast<double>(c.total_ns)), ms(static_cast<double>(c.transfer_ns)),
        ms(static_cast<double>(c.wait_ns)),
        c.algbw_gb_per_s > 0 ? fmt::format("{:.2f}", c.algbw_gb_per_s) : "-",
        c.busbw_gb_per_s > 0 ? fmt::format("{:.2f}", c.busbw_gb_per_s) : "-",
        c.busbw_share_of_link_peak ? fmt::format("{:.0f} %", 100 * *c.busbw_share_of_link_peak)
                                   : "-");
  }
  const CollectiveRow& first = job.collectives.front();
  out += "</table>\n<p class=\"note\">";
  out += first.link_peak_gb_per_s
             ? fmt::format("% of link: busbw / {:.1f} GB/s, the link peak given by --link-gbps.",
                           *first.link_peak_gb_per_s)
             : std::string("% of link: link unknown (pass --link-gbps).");
  return out + "</p>\n";
}

}  // namespace

std::string render_job_html_section(const JobAnalysis& job) {
  std::string out =
      "<section class=\"job\"><h2>Job</h2>\n<p class=\"verdict\">" + escape(job.verdict) + "</p>\n";
  for (const std::string& note : job.notes) out += "<p class=\"note\">" + escape(note) + "</p>\n";
  if (!job.findings.empty()) {
    out += "<ol class=\"findings\">\n";
    for (const JobFinding& jf : job.findings) {
      std::string ranks;
      for (std::size_t i = 0; i < jf.ranks.size() && i < 16; ++i) {
        if (i > 0) ranks += ", ";
        ranks += std::to_string(jf.ranks[i]);
      }
      const std::string gain =
          render::saves_no_time(jf.finding.gain)
              ? escape(render::no_time_saved_wording(jf.finding))
              : fmt::format("likely gain {} ms/step",
                            ms(static_cast<double>(jf.finding.gain.likely_ns)));
      out += fmt::format("<li><b>[{}] {}</b> (ranks {})<br>fix: {}<br>{}</li>\n",
                         escape(to_string(jf.finding.severity)), escape(jf.finding.title), ranks,
                         escape(jf.finding.fix), gain);
    }
    out += "</ol>\n";
  }
  // Device idle is 0 by definition on CPU-only ranks: a column of zeros would suggest a GPU.
  const bool gpu = std::any_of(job.summaries.begin(), job.summaries.end(),
                               [](const RankSummary& s) { return s.has_device_activity; });
  out +=
      "<table id=\"job-ranks\"><tr><th>rank</th><th>step p50 (ms)</th><th>step max "
      "(ms)</th><th>compute "
      "(ms/step)</th><th>exposed comm (ms/step)</th><th>wait (ms/step)</th>" +
      std::string(gpu ? "<th>idle (ms/step)</th>" : "") + "<th>top finding</th></tr>\n";
  for (const RankRow& r : job.ranks) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></"
        "tr>\n",
        r.rank, ms(r.step_p50_ns), ms(r.step_max_ns), ms(r.compute_ns), ms(r.exposed_comm_ns),
        ms(r.wait_ns), gpu ? fmt::format("<td>{}</td>", ms(r.idle_ns)) : std::string(),
        escape(r.top_finding));
  }
  out += "</table>\n";
  out += heat_map(job);
  out += wait_picture(job);
  out += collective_table_html(job);
  return out + "</section>\n";
}

std::string render_job_html(const JobAnalysis& job) {
  return render::html::page(
      "stepscope job report",
      "<header><h1>stepscope job report</h1></header>\n" + render_job_html_section(job));
}

}  // namespace stepscope::job
