// Waiting and exposed communication per rank, after the clocks are aligned: a rank waits from
// its arrival to the last rank's; only what follows (the transfer) is communication, and only
// the part of it that no other work overlapped is exposed.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "job/job_internal.h"

namespace stepscope::job::detail {

std::vector<RankWaits> rank_waits(const std::vector<RankSummary>& ranks,
                                  const std::vector<MatchedCollective>& matched,
                                  std::int64_t min_lateness_ns) {
  std::map<std::int64_t, std::size_t> index;
  std::vector<RankWaits> out;
  for (const RankSummary& r : ranks) {
    index[r.rank] = out.size();
    RankWaits w;
    w.rank = r.rank;
    w.steps = r.steps.empty() ? 1.0 : static_cast<double>(r.steps.size());
    out.push_back(w);
  }
  // Per-step figures count the collectives inside kept steps when the rank has any.
  auto counts = [&ranks, &index](std::int64_t rank, std::int64_t step) {
    return step >= 0 || ranks[index.at(rank)].steps.empty();
  };
  std::set<std::tuple<std::int64_t, std::string, std::int64_t>> seen;
  for (const MatchedCollective& m : matched) {
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
      seen.insert({m.ranks[i], m.group, m.order});
      if (!counts(m.ranks[i], m.step[i])) continue;
      RankWaits& w = out[index.at(m.ranks[i])];
      w.wait_ns += static_cast<double>(m.wait_ns(i));
      const std::int64_t duration = m.end_ns[i] - m.arrival_ns[i];
      const std::int64_t transfer =
          std::max<std::int64_t>(0, m.end_ns[i] - std::max(m.arrival_ns[i], m.last_arrival_ns));
      const double covered =
          duration > 0 ? static_cast<double>(m.overlapped_ns[i]) / static_cast<double>(duration)
                       : 0.0;
      w.exposed_ns += static_cast<double>(transfer) * std::max(0.0, 1.0 - covered);
    }
    if (m.lateness_ns >= min_lateness_ns) {
      const std::size_t last = index.at(m.last_rank);
      out[last].last_count += 1;
      out[last].late_ns += static_cast<double>(m.lateness_ns);
    }
  }
  // A collective seen on one rank only: no waiting can be told apart, all of it counts.
  for (const RankSummary& r : ranks) {
    RankWaits& w = out[index.at(r.rank)];
    for (const SummaryCollective& c : r.collectives) {
      if (seen.contains({r.rank, c.group, c.order}) || !counts(r.rank, c.step)) continue;
      w.exposed_ns +=
          static_cast<double>(std::max<std::int64_t>(0, c.end_ns - c.start_ns - c.overlapped_ns));
    }
    w.wait_ns /= w.steps;
    w.exposed_ns /= w.steps;
  }
  return out;
}

std::vector<RankRow> rank_table(const std::vector<RankSummary>& ranks,
                                const std::vector<RankWaits>& waits) {
  std::vector<RankRow> rows;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankSummary& r = ranks[i];
    RankRow row;
    row.rank = r.rank;
    row.steps = static_cast<std::int64_t>(r.steps.size());
    std::vector<double> durations;
    double compute = 0;
    double idle = 0;
    for (const SummaryStep& s : r.steps) {
      durations.push_back(static_cast<double>(s.duration_ns()));
      compute += static_cast<double>(s.compute_ns);
      idle += static_cast<double>(s.idle_ns);
    }
    if (!durations.empty()) {
      row.step_p50_ns = median(durations);
      row.step_max_ns = *std::max_element(durations.begin(), durations.end());
      compute /= static_cast<double>(durations.size());
      idle /= static_cast<double>(durations.size());
    }
    row.compute_ns = compute;
    row.idle_ns = idle;
    row.wait_ns = waits[i].wait_ns;
    row.exposed_comm_ns = waits[i].exposed_ns;
    if (!r.findings.empty()) {
      row.top_finding = r.findings.front().id;
      row.top_finding_title = r.findings.front().title;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace stepscope::job::detail
