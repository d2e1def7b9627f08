// The job section of the terminal report: verdict, ranked job findings, the per-rank table
// (summarised past kMaxRankRows ranks), stragglers, clock offsets, the collective table.
#include <fmt/core.h>

#include <algorithm>

#include "render/gain_wording.h"
#include "render/text_format.h"
#include "stepscope/job/job_report.h"

namespace stepscope::job {

namespace {

using render::format_bytes;
using render::format_percent;
using render::heading;
using render::printable;

constexpr std::size_t kMaxRankRows = 32;

std::string ms(double ns) { return fmt::format("{:.2f}", ns / 1e6); }

std::string rank_line(const RankRow& r) {
  return fmt::format("  {:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {}\n", r.rank,
                     r.steps, ms(r.step_p50_ns), ms(r.step_max_ns), ms(r.compute_ns),
                     ms(r.exposed_comm_ns), ms(r.wait_ns), ms(r.idle_ns),
                     printable(r.top_finding.empty() ? "-" : r.top_finding, 40));
}

std::string rank_table_text(const JobAnalysis& job) {
  std::string out = heading("Ranks (per step, ms)");
  out += fmt::format("  {:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}  {}\n", "rank",
                     "steps", "p50", "max", "compute", "exp.comm", "wait", "idle", "top finding");
  if (job.ranks.size() <= kMaxRankRows) {
    for (const RankRow& r : job.ranks) out += rank_line(r);
    return out;
  }
  // Many ranks: the spread, the slowest and fastest, and the outliers only.
  std::vector<const RankRow*> sorted;
  for (const RankRow& r : job.ranks) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const RankRow* a, const RankRow* b) {
    return a->step_p50_ns != b->step_p50_ns ? a->step_p50_ns < b->step_p50_ns : a->rank < b->rank;
  });
  const double lo = sorted.front()->step_p50_ns;
  const double hi = sorted.back()->step_p50_ns;
  const double mid = sorted[sorted.size() / 2]->step_p50_ns;
  out += fmt::format("  {} ranks: step p50 from {} ms to {} ms (median {} ms)\n", sorted.size(),
                     ms(lo), ms(hi), ms(mid));
  out += "  fastest:\n";
  for (std::size_t i = 0; i < 3 && i < sorted.size(); ++i) out += rank_line(*sorted[i]);
  out += "  slowest:\n";
  for (std::size_t i = 0; i < 3 && i < sorted.size(); ++i) {
    out += rank_line(*sorted[sorted.size() - 1 - i]);
  }
  std::vector<double> waits;
  for (const RankRow& r : job.ranks) waits.push_back(r.wait_ns);
  std::sort(waits.begin(), waits.end());
  const double median_wait = waits[waits.size() / 2];
  std::size_t outliers = 0;
  for (const RankRow& r : job.ranks) {
    const bool slow = r.step_p50_ns > 1.1 * mid;
    const bool little_wait = median_wait > 0 && r.wait_ns < 0.25 * median_wait;
    if ((slow || little_wait) && outliers < 10) {
      if (outliers == 0) out += "  outliers (slow steps, or little waiting while others wait):\n";
      out += rank_line(r);
      ++outliers;
    }
  }
  return out;
}

}  // namespace

std::string render_job_text(const JobAnalysis& job, int top) {
  std::string out = heading("Job");
  out += "  " + printable(job.verdict, 400) + "\n";
  out += fmt::format("  {} ranks analysed (world size {}), {} collectives matched across ranks\n",
                     job.ranks.size(), job.world_size > 0 ? std::to_string(job.world_size) : "?",
                     job.matched_collectives);
  for (const std::string& note : job.notes) out += "  note: " + printable(note, 400) + "\n";
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
      out += fmt::format("  {}. [{}] {} (ranks {})\n", n, to_string(f.severity),
                         printable(f.title, 200), ranks);
      for (const Evidence& e : f.evidence) {
        if (e.unit.empty()) {
          out += "     - " + printable(e.label, 200) + "\n";
        } else {
          out += fmt::format("     - {}: {:.2f} {}\n", printable(e.label, 120), e.value, e.unit);
        }
      }
      out += "     fix: " + printable(f.fix, 600) + "\n";
      if (render::saves_no_time(f.gain)) {
        out += fmt::format("     gain: {}; {}\n", render::no_time_saved_wording(f),
                           printable(f.gain.method, 200));
      } else {
        out += fmt::format("     gain: likely {} ms/step ({}), {}\n",
                           ms(static_cast<double>(f.gain.likely_ns)),
                           format_percent(f.gain.likely_share), printable(f.gain.method, 200));
      }
    }
  }
  out += rank_table_text(job);
  if (!job.stragglers.empty()) {
    out += heading("Stragglers");
    for (const Straggler& s : job.stragglers) {
      out +=
          fmt::format("  rank {}: {} ms/step late, last at {} of collectives, phase {}\n", s.rank,
                      ms(s.late_ns_per_step), format_percent(s.share_last), printable(s.phase, 40));
      for (const std::string& e : s.evidence) out += "    - " + printable(e, 300) + "\n";
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
    out += fmt::format("  {:<16} {:>20} {:>7} {:>11} {:>12} {:>10} {:>10} {:>10}\n", "kind", "size",
                       "count", "total ms", "transfer ms", "wait ms", "algbw GB/s", "busbw GB/s");
    for (const CollectiveRow& c : job.collectives) {
      const std::string size =
          c.min_bytes < 0 ? "unknown" : format_bytes(c.min_bytes) + "-" + format_bytes(c.max_bytes);
      out += fmt::format("  {:<16} {:>20} {:>7} {:>11} {:>12} {:>10} {:>10} {:>10}{}\n",
                         printable(c.kind, 16), size, c.count, ms(static_cast<double>(c.total_ns)),
                         ms(static_cast<double>(c.transfer_ns)), ms(static_cast<double>(c.wait_ns)),
                         c.algbw_gb_per_s > 0 ? fmt::format("{:.2f}", c.algbw_gb_per_s) : "-",
                         c.busbw_gb_per_s > 0 ? fmt::format("{:.2f}", c.busbw_gb_per_s) : "-",
                         c.latency_bound ? "  latency-bound" : "");
    }
  }
  return out;
}

}  // namespace stepscope::job
