// The job section of the terminal report: verdict, ranked job findings, the per-rank table
// (summarised past kMaxRankRows ranks), stragglers, clock offsets, the collective table.
#include <fmt/core.h>

#include <algorithm>

#include "render/gain_wording.h"
#include "render/rank_spread.h"
#include "render/text_format.h"
#include "stepscope/job/job_report.h"

namespace stepscope::job {

namespace {

using render::fit_lines;
using render::format_bytes;
using render::format_evidence_value;
using render::format_percent;
using render::heading;
using render::Importance;
using render::kFixColumns;
using render::printable;
using render::TextTable;
using render::wrap_hanging;

// Past kMaxRankRows ranks the table gives way to the spread, the kExtremeRanks slowest and
// fastest ranks and at most kMaxOutlierLines outliers; past kMaxStragglerLines stragglers the
// rest are counted.
constexpr std::size_t kMaxRankRows = 32;
constexpr std::size_t kExtremeRanks = 5;
constexpr std::size_t kMaxOutlierLines = 10;
constexpr std::size_t kMaxStragglerLines = 10;

std::string ms(double ns) { return fmt::format("{:.2f}", ns / 1e6); }

void add_rank_columns(TextTable& table) {
  table.add_column("rank");
  table.add_column("steps", false, Importance::kMedium);
  table.add_column("p50");
  table.add_column("max", false, Importance::kHigh);
  table.add_column("compute", false, Importance::kMedium);
  table.add_column("exp.comm", false, Importance::kHigh);
  table.add_column("wait");
  table.add_column("idle", false, Importance::kMedium);
  table.add_column("top finding", true);
}

void add_rank_row(TextTable& table, const RankRow& r) {
  table.add_row({std::to_string(r.rank), std::to_string(r.steps), ms(r.step_p50_ns),
                 ms(r.step_max_ns), ms(r.compute_ns), ms(r.exposed_comm_ns), ms(r.wait_ns),
                 ms(r.idle_ns), printable(r.top_finding.empty() ? "-" : r.top_finding, 40)});
}

// The rows as a table of their own, for the groups of a large job.
std::string rank_rows(const std::vector<const RankRow*>& rows, std::size_t width) {
  TextTable table;
  add_rank_columns(table);
  for (const RankRow* r : rows) add_rank_row(table, *r);
  return table.render("  ", width);
}

std::vector<const RankRow*> all_rows(const JobAnalysis& job) {
  std::vector<const RankRow*> all;
  all.reserve(job.ranks.size());
  for (const RankRow& r : job.ranks) all.push_back(&r);
  return all;
}

// min, p50, p95 and max over the ranks of each per-rank figure.
std::string spread_table(const JobAnalysis& job, std::size_t width) {
  TextTable table;
  table.add_column("ms per step", true);
  table.add_column("min");
  table.add_column("p50");
  table.add_column("p95");
  table.add_column("max");
  for (const render::RankMetric& metric : render::rank_metrics()) {
    const render::Spread s = render::spread_of(job.ranks, metric.field);
    table.add_row({metric.label, ms(s.min), ms(s.p50), ms(s.p95), ms(s.max)});
  }
  return table.render("  ", width);
}

std::string outlier_text(const JobAnalysis& job, std::size_t width) {
  const std::vector<render::RankOutlier> outliers = render::rank_outliers(job.ranks);
  std::string out =
      wrap_hanging("  ",
                   fmt::format("outlier ranks: {} ({})", render::format_count(outliers.size()),
                               render::outlier_rule()),
                   width, 4);
  for (std::size_t i = 0; i < outliers.size() && i < kMaxOutlierLines; ++i) {
    std::string reasons;
    for (const std::string& reason : outliers[i].reasons) {
      reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    out += wrap_hanging(fmt::format("    rank {}: ", outliers[i].row->rank), reasons, width, 6);
  }
  if (outliers.size() > kMaxOutlierLines) {
    out += fmt::format("    … and {} more\n",
                       render::format_count(outliers.size() - kMaxOutlierLines));
  }
  return out;
}

// Many ranks: the spread, the slowest and fastest, and the outliers, never a row per rank.
std::string rank_summary_text(const JobAnalysis& job, std::size_t width) {
  std::string out =
      wrap_hanging("  ",
                   fmt::format("{} ranks summarised here; every rank's row is in the JSON (--json)",
                               render::format_count(job.ranks.size())),
                   width, 2);
  out += spread_table(job, width);
  const render::ExtremeRanks extremes = render::extreme_ranks(job.ranks, kExtremeRanks);
  out += fmt::format("  slowest {} ranks (longest compute per step):\n", extremes.slowest.size());
  out += rank_rows(extremes.slowest, width);
  out += fmt::format("  fastest {} ranks:\n", extremes.fastest.size());
  out += rank_rows(extremes.fastest, width);
  out += outlier_text(job, width);
  out += "  hosts: summaries name no host, so outliers are by rank only\n";
  return out;
}

std::string rank_table_text(const JobAnalysis& job, std::size_t width) {
  const std::string out = heading("Ranks (per step, ms)");
  if (job.ranks.size() <= kMaxRankRows) return out + rank_rows(all_rows(job), width);
  return out + rank_summary_text(job, width);
}

std::string collective_table(const JobAnalysis& job, std::size_t width) {
  TextTable table;
  table.add_column("kind", true);
  table.add_column("size", false, Importance::kMedium);
  table.add_column("count", false, Importance::kMedium);
  table.add_column("total ms");
  table.add_column("transfer ms", false, Importance::kHigh);
  table.add_column("wait ms");
  table.add_column("algbw GB/s", false, Importance::kLow);
  table.add_column("busbw GB/s", false, Importance::kHigh);
  table.add_column("% of link", false, Importance::kMedium);
  table.add_column("", true, Importance::kLow);
  for (const CollectiveRow& c : job.collectives) {
    const std::string size =
        c.min_bytes < 0 ? "unknown" : format_bytes(c.min_bytes) + "-" + format_bytes(c.max_bytes);
    table.add_row(
        {printable(c.kind, 16), size, std::to_string(c.count), ms(static_cast<double>(c.total_ns)),
         ms(static_cast<double>(c.transfer_ns)), ms(static_cast<double>(c.wait_ns)),
         c.algbw_gb_per_s > 0 ? fmt::format("{:.2f}", c.algbw_gb_per_s) : "-",
         c.busbw_gb_per_s > 0 ? fmt::format("{:.2f}", c.busbw_gb_per_s) : "-",
         c.busbw_share_of_link_peak ? fmt::format("{:.0f} %", 100 * *c.busbw_share_of_link_peak)
                                    : "-",
         c.latency_bound ? "latency-bound" : ""});
  }
  return table.render("  ", width);
}

// What busbw is compared with: the trace never names its link, so only the user's peak.
std::string link_line(const JobAnalysis& job) {
  for (const CollectiveRow& c : job.collectives) {
    if (c.link_peak_gb_per_s) {
      return fmt::format("% of link: busbw / {:.1f} GB/s, the link peak given by --link-gbps",
                         *c.link_peak_gb_per_s);
    }
  }
  return "% of link: link unknown (pass --link-gbps)";
}

}  // namespace

std::string render_job_text(const JobAnalysis& job, int top) {
  return render_job_text(job, TextOptions{top, render::kDefaultTextWidth});
}

std::string render_job_text(const JobAnalysis& job, const TextOptions& options) {
  const std::size_t width = std::max(options.width, render::kMinimumTextWidth);
  const int top = options.top;
  std::string out = heading("Job");
  out += wrap_hanging("  ", printable(job.verdict, 400), width, 2);
  out += fmt::format("  {} ranks analysed (world size {}), {} collectives matched across ranks\n",
                     job.ranks.size(), job.world_size > 0 ? std::to_string(job.world_size) : "?",
                     job.matched_collectives);
  for (const std::string& note : job.notes) {
    out += wrap_hanging("  note: ", printable(note, 400), width, 8);
  }
  if (!job.findings.empty()) {
    out += heading("Job findings");
    int n = 0;
    for (const JobFinding& jf : job.findings) {
      if (n++ >= top) break;
      const Finding& f = jf.finding;
      std::string ranks;
      for (std::size_t i = 0; i < jf.ranks.size() && i < 16; ++i) {
        if (i > 0) ranks += ',';
        ranks += std::to_string(jf.ranks[i]);
      }
      if (jf.ranks.size() > 16) ranks += ",…";
      out += wrap_hanging(
          fmt::format("  {}. ", n),
          fmt::format("[{}] {} (ranks {})", to_string(f.severity), printable(f.title, 200), ranks),
          width, 5);
      for (const Evidence& e : f.evidence) {
        if (e.unit.empty()) {
          out += wrap_hanging("     - ", printable(e.label, 200), width, 7);
        } else {
          out += wrap_hanging("     - ",
                              fmt::format("{}: {} {}", printable(e.label, 120),
                                          format_evidence_value(e.value), e.unit),
                              width, 7);
        }
      }
      out += wrap_hanging("     fix: ", printable(f.fix, kFixColumns), width, 10);
      const std::string gain =
          render::saves_no_time(f.gain)
              ? fmt::format("{}; {}", render::no_time_saved_wording(f),
                            printable(f.gain.method, 200))
              : fmt::format("likely {} ms/step ({}), {}", ms(static_cast<double>(f.gain.likely_ns)),
                            format_percent(f.gain.likely_share), printable(f.gain.method, 200));
      out += wrap_hanging("     gain: ", gain, width, 11);
    }
  }
  out += rank_table_text(job, width);
  if (!job.stragglers.empty()) {
    out += heading("Stragglers");
    for (std::size_t i = 0; i < job.stragglers.size() && i < kMaxStragglerLines; ++i) {
      const Straggler& s = job.stragglers[i];
      out += fmt::format("  rank {}: {} ms/step late, late in {} of steps (last at {}), phase {}\n",
                         s.rank, ms(s.late_ns_per_step), format_percent(s.share_late),
                         format_percent(s.share_last), printable(s.phase, 40));
      for (const std::string& e : s.evidence) {
        out += wrap_hanging("    - ", printable(e, 300), width, 6);
      }
    }
    if (job.stragglers.size() > kMaxStragglerLines) {
      out += fmt::format("  … and {} more stragglers (all in the JSON)\n",
                         render::format_count(job.stragglers.size() - kMaxStragglerLines));
    }
  }
  if (job.scaling.applicable) {
    out += fmt::format(
        "  scaling efficiency: {} (step {} ms with no waiting and full overlap, {} ms actual)\n",
        format_percent(job.scaling.efficiency), ms(job.scaling.ideal_step_ns),
        ms(job.scaling.actual_step_ns));
  }
  bool any_offset = false;
  for (const ClockOffset& o : job.clock_offsets) any_offset = any_offset || o.collectives > 0;
  if (any_offset) {
    out += "  clock offsets to rank " + std::to_string(job.clock_offsets.front().rank) + " (µs):";
    std::size_t shown = 0;
    for (const ClockOffset& o : job.clock_offsets) {
      if (shown++ >= 16) {
        out += " …";
        break;
      }
      out += fmt::format(" r{} {:+.1f}", o.rank, static_cast<double>(o.offset_ns) / 1e3);
    }
    out += "\n";
  }
  if (!job.collectives.empty()) {
    out += heading("Collectives (matched across ranks)");
    out += collective_table(job, width);
    out += "  " + link_line(job) + "\n";
  }
  return fit_lines(out, width);
}

}  // namespace stepscope::job
