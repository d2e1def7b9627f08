// The job in HTML: the verdict, the per-rank table (grouped ranks past 256), a rank × step heat
// map of step time (grouped past 128 ranks and 100 steps), the collective wait
// picture (which rank everyone waits for) and the collective table. Everything from a trace is
// escaped; the SVG is inline so the page opens offline.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <span>

#include "render/gain_wording.h"
#include "render/html/html_escape.h"
#include "render/html/page.h"
#include "render/rank_spread.h"
#include "stepscope/job/job_report.h"

namespace stepscope::job {

namespace {

using render::html::escape;

// Bounds that keep the page's size independent of the number of ranks and steps (the page cap
// is 5 MB): rank table rows, heat map rows and columns, wait table rows, individual rows.
constexpr std::size_t kMaxRankTableRows = 256;
constexpr std::size_t kMaxHeatRows = 128;
constexpr std::size_t kMaxHeatColumns = 100;
constexpr std::size_t kMaxWaitRows = 32;
constexpr std::size_t kExtremeRanks = 5;
constexpr std::size_t kMaxOutlierRows = 50;

std::string ms(double ns) { return fmt::format("{:.2f}", ns / 1e6); }

// White (fastest) to red (slowest) through yellow.
std::string heat_colour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const int g = static_cast<int>(235 - 175 * t);
  const int b = static_cast<int>(200 * (1 - t) * (1 - t));
  return fmt::format("rgb(250,{},{})", g, b);
}

std::string range_label(const char* one, const char* many, std::int64_t first, std::int64_t last) {
  return first == last ? fmt::format("{} {}", one, first)
                       : fmt::format("{} {}–{}", many, first, last);
}

// One heat map cell: the slowest of the steps it stands for, and their median.
struct HeatCell {
  double max = -1;  // ns; negative: no step
  double median = 0;
  std::int64_t slowest_rank = 0;
};

HeatCell heat_cell(const std::vector<const RankSummary*>& rows, render::IndexRange ranks,
                   render::IndexRange steps) {
  HeatCell cell;
  std::vector<double> values;
  for (std::size_t r = ranks.first; r <= ranks.last; ++r) {
    const RankSummary& s = *rows[r];
    for (std::size_t c = steps.first; c <= steps.last && c < s.steps.size(); ++c) {
      const auto d = static_cast<double>(s.steps[c].duration_ns());
      values.push_back(d);
      if (d > cell.max) {
        cell.max = d;
        cell.slowest_rank = s.rank;
      }
    }
  }
  if (values.empty()) return cell;
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  cell.median = *middle;
  return cell;
}

std::string heat_title(const std::vector<const RankSummary*>& rows, render::IndexRange ranks,
                       render::IndexRange steps, const HeatCell& cell) {
  const std::string who =
      range_label("rank", "ranks", rows[ranks.first]->rank, rows[ranks.last]->rank);
  const std::int64_t first_step = rows[ranks.first]->steps.size() > steps.first
                                      ? rows[ranks.first]->steps[steps.first].number
                                      : static_cast<std::int64_t>(steps.first);
  if (ranks.first == ranks.last && steps.first == steps.last) {
    return fmt::format("{} step {}: {} ms", who, first_step, ms(cell.max));
  }
  return fmt::format("{}, {} steps from step {}: slowest {} ms (rank {}), median {} ms", who,
                     steps.last - steps.first + 1, first_step, ms(cell.max), cell.slowest_rank,
                     ms(cell.median));
}

// How the heat map grouped ranks and steps, in words.
std::string heat_grouping(std::size_t ranks, std::size_t rank_groups, std::size_t steps,
                          std::size_t step_groups) {
  std::string out;
  if (rank_groups < ranks) {
    out += fmt::format(
        " The {} ranks are drawn as {} rows of up to {} consecutive ranks (by rank number).", ranks,
        rank_groups, (ranks + rank_groups - 1) / rank_groups);
  }
  if (step_groups < steps) {
    out += fmt::format(" The {} steps are drawn as {} columns of up to {} consecutive steps.",
                       steps, step_groups, (steps + step_groups - 1) / step_groups);
  }
  if (!out.empty()) {
    out +=
        " Each cell shows the slowest step it stands for (its tooltip names that rank and the "
        "median), so a slow rank is never averaged away.";
  }
  return out;
}

// Ranks as rows, steps as columns; past kMaxHeatRows ranks (kMaxHeatColumns steps) consecutive
// ranks (steps) share a row (column), so that the page does not grow with the job.
std::string heat_map(const JobAnalysis& job) {
  std::vector<const RankSummary*> rows;
  for (const RankSummary& s : job.summaries) rows.push_back(&s);
  if (rows.empty()) return {};
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
  const std::vector<render::IndexRange> rank_groups =
      render::consecutive_groups(rows.size(), kMaxHeatRows);
  const std::vector<render::IndexRange> step_groups =
      render::consecutive_groups(columns, kMaxHeatColumns);
  const int cell_w = std::max(6, std::min(40, static_cast<int>(720 / step_groups.size())));
  const int cell_h = 14;
  const int left = 90;
  std::string svg = fmt::format(
      "<svg class=\"heat\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"step time per "
      "rank and step\">\n",
      left + static_cast<int>(step_groups.size()) * cell_w + 10,
      static_cast<int>(rank_groups.size()) * cell_h + 20);
  int y = 0;
  for (const render::IndexRange& ranks : rank_groups) {
    svg +=
        fmt::format("<text x=\"0\" y=\"{}\" font-size=\"11\">{}</text>\n", y + 11,
                    range_label("rank", "ranks", rows[ranks.first]->rank, rows[ranks.last]->rank));
    for (std::size_t c = 0; c < step_groups.size(); ++c) {
      const HeatCell cell = heat_cell(rows, ranks, step_groups[c]);
      if (cell.max < 0) continue;
      const double t = hi > lo ? (cell.max - lo) / (hi - lo) : 0.0;
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}</title>"
          "</rect>\n",
          left + static_cast<int>(c) * cell_w, y, cell_w - 1, cell_h - 1, heat_colour(t),
          heat_title(rows, ranks, step_groups[c], cell));
    }
    y += cell_h;
  }
  svg += "</svg>\n";
  std::string out = "<h2>Step time per rank and step</h2>\n" + svg;
  out += fmt::format(
      "<p class=\"note\" id=\"heat-grouping\">From {} ms (light) to {} ms (red).{}"
      "</p>\n",
      ms(lo), ms(hi), heat_grouping(rows.size(), rank_groups.size(), columns, step_groups.size()));
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
  // Many ranks: only those last most often, so that the table does not grow with the job.
  std::vector<const RankRow*> shown;
  for (const RankRow& r : job.ranks) shown.push_back(&r);
  const auto count_of = [&](const RankRow* r) {
    const auto found = last_count.find(r->rank);
    return found == last_count.end() ? std::int64_t{0} : found->second;
  };
  if (shown.size() > kMaxRankTableRows) {
    std::stable_sort(shown.begin(), shown.end(),
                     [&](const RankRow* a, const RankRow* b) { return count_of(a) > count_of(b); });
    shown.resize(kMaxWaitRows);
  }
  for (const RankRow* r : shown) {
    const std::int64_t count = count_of(r);
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td><svg width=\"200\" height=\"10\"><rect width=\"{}\" "
        "height=\"10\" fill=\"#c0392b\"/></svg></td><td>{}</td></tr>\n",
        r->rank, count, 200 * count / most, ms(r->wait_ns));
  }
  out += "</table>\n";
  if (shown.size() < job.ranks.size()) {
    out += fmt::format(
        "<p class=\"note\" id=\"wait-grouping\">The {} ranks that arrived last most often, of "
        "{} ranks.</p>\n",
        shown.size(), job.ranks.size());
  }
  return out;
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

std::string rank_header(bool gpu, const char* first) {
  return fmt::format(
      "<tr><th>{}</th><th>step p50 (ms)</th><th>step max (ms)</th><th>compute (ms/step)</th>"
      "<th>exposed comm (ms/step)</th><th>wait (ms/step)</th>{}<th>top finding</th></tr>\n",
      first, gpu ? "<th>idle (ms/step)</th>" : "");
}

std::string rank_row_html(const RankRow& r, bool gpu) {
  return fmt::format(
      "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>\n",
      r.rank, ms(r.step_p50_ns), ms(r.step_max_ns), ms(r.compute_ns), ms(r.exposed_comm_ns),
      ms(r.wait_ns), gpu ? fmt::format("<td>{}</td>", ms(r.idle_ns)) : std::string(),
      escape(r.top_finding));
}

// "median (min–max)" of one figure over a group of consecutive rank rows.
std::string group_cell(const std::vector<RankRow>& ranks, render::IndexRange group,
                       double RankRow::*field) {
  const render::Spread s = render::spread_of(
      std::span<const RankRow>(ranks).subspan(group.first, group.last - group.first + 1), field);
  return fmt::format("<td>{} ({}–{})</td>", ms(s.p50), ms(s.min), ms(s.max));
}

// Past kMaxRankTableRows ranks: rows of consecutive ranks, then the ranks worth a row of their
// own (slowest, fastest, outliers).
std::string grouped_rank_table(const JobAnalysis& job, bool gpu) {
  const std::vector<render::IndexRange> groups =
      render::consecutive_groups(job.ranks.size(), kMaxRankTableRows);
  std::string out = fmt::format(
      "<p class=\"note\" id=\"rank-grouping\">{} ranks, shown as {} rows of up to {} "
      "consecutive ranks: each cell is the median over the row's ranks (min–max); the slowest, "
      "fastest and outlier ranks follow with rows of their own, and every rank's row is in the "
      "JSON (--json).</p>\n",
      job.ranks.size(), groups.size(), (job.ranks.size() + groups.size() - 1) / groups.size());
  out += "<table id=\"job-ranks\">" + rank_header(gpu, "ranks");
  for (const render::IndexRange& g : groups) {
    out += "<tr><td>" +
           range_label("rank", "ranks", job.ranks[g.first].rank, job.ranks[g.last].rank) + "</td>" +
           group_cell(job.ranks, g, &RankRow::step_p50_ns) +
           group_cell(job.ranks, g, &RankRow::step_max_ns) +
           group_cell(job.ranks, g, &RankRow::compute_ns) +
           group_cell(job.ranks, g, &RankRow::exposed_comm_ns) +
           group_cell(job.ranks, g, &RankRow::wait_ns) +
           (gpu ? group_cell(job.ranks, g, &RankRow::idle_ns) : std::string()) + "<td></td></tr>\n";
  }
  out += "</table>\n";
  const std::vector<render::RankOutlier> outliers = render::rank_outliers(job.ranks);
  const render::ExtremeRanks extremes = render::extreme_ranks(job.ranks, kExtremeRanks);
  out += fmt::format(
      "<h3>The {} slowest and {} fastest ranks (longest and shortest compute per step)</h3>\n"
      "<table id=\"job-extreme-ranks\">",
      extremes.slowest.size(), extremes.fastest.size());
  out += rank_header(gpu, "rank");
  for (const RankRow* r : extremes.slowest) out += rank_row_html(*r, gpu);
  for (const RankRow* r : extremes.fastest) out += rank_row_html(*r, gpu);
  out += "</table>\n";
  out += fmt::format("<h3>Outlier ranks: {}</h3>\n<p class=\"note\">Outliers lie {}.{}</p>\n",
                     outliers.size(), escape(render::outlier_rule()),
                     outliers.size() > kMaxOutlierRows
                         ? fmt::format(" The {} farthest are shown.", kMaxOutlierRows)
                         : std::string());
  if (outliers.empty()) return out;
  out += "<table id=\"job-outlier-ranks\"><tr><th>rank</th><th>outlying in</th></tr>\n";
  for (std::size_t i = 0; i < outliers.size() && i < kMaxOutlierRows; ++i) {
    std::string reasons;
    for (const std::string& reason : outliers[i].reasons) {
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", outliers[i].row->rank, escape(reasons));
  }
  return out + "</table>\n";
}

std::string rank_table_html(const JobAnalysis& job, bool gpu) {
  if (job.ranks.size() > kMaxRankTableRows) return grouped_rank_table(job, gpu);
  std::string out = "<table id=\"job-ranks\">" + rank_header(gpu, "rank");
  for (const RankRow& r : job.ranks) out += rank_row_html(r, gpu);
  return out + "</table>\n";
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
  out += rank_table_html(job, gpu);
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
