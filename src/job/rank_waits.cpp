// Waiting and exposed communication per rank, after the clocks are aligned: a rank waits from
// its arrival to the last rank's; only what follows (the transfer) is communication, and only
// the part of it that no other work overlapped is exposed. And each rank's lateness at each
// collective, against the other ranks' median arrival, for the stragglers.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "job/job_internal.h"

namespace stepscope::job::detail {

std::int64_t median_without(const std::vector<std::int64_t>& sorted, std::int64_t value) {
  if (sorted.size() < 2) return 0;
  const auto skipped = static_cast<std::size_t>(
      std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin());
  auto other = [&sorted, skipped](std::size_t k) { return sorted[k < skipped ? k : k + 1]; };
  const std::size_t n = sorted.size() - 1;
  if (n % 2 == 1) return other(n / 2);
  const std::int64_t low = other(n / 2 - 1);
  return low + (other(n / 2) - low) / 2;  // as median_ns: no overflow, rounds toward the lower
}

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
  std::vector<std::map<std::int64_t, std::int64_t>> per_step(out.size());  // step -> lateness
  std::vector<std::int64_t> sorted_arrivals;
  for (const MatchedCollective& m : matched) {
    sorted_arrivals = m.arrival_ns;
    std::sort(sorted_arrivals.begin(), sorted_arrivals.end());
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
      seen.insert({m.ranks[i], m.group, m.order});
      RankWaits& w = out[index.at(m.ranks[i])];
      const std::int64_t lateness =
          m.arrival_ns[i] - median_without(sorted_arrivals, m.arrival_ns[i]);
      if (m.step[i] >= 0) {
        per_step[index.at(m.ranks[i])][m.step[i]] += lateness;
      } else {
        w.lateness_ns.push_back(lateness);
      }
      const bool late = lateness >= min_lateness_ns;
      if (!counts(m.ranks[i], m.step[i])) continue;
      if (late) w.late_ns += static_cast<double>(lateness);
      w.wait_ns += static_cast<double>(m.wait_ns(i));
      const std::int64_t duration = m.end_ns[i] - m.arrival_ns[i];
      const std::int64_t transfer =
          std::max<std::int64_t>(0, m.end_ns[i] - std::max(m.arrival_ns[i], m.last_arrival_ns));
      const double covered =
          duration > 0 ? static_cast<double>(m.overlapped_ns[i]) / static_cast<double>(duration)
                       : 0.0;
      w.exposed_ns += static_cast<double>(transfer) * std::max(0.0, 1.0 - covered);
    }
    if (m.lateness_ns >= min_lateness_ns) out[index.at(m.last_rank)].last_count += 1;
  }
  for (std::size_t r = 0; r < out.size(); ++r) {
    RankWaits& w = out[r];
    for (const auto& [step, lateness] : per_step[r]) w.lateness_ns.push_back(lateness);
    w.step_occasions = static_cast<std::int64_t>(per_step[r].size());
    w.late_count = static_cast<double>(
        std::count_if(w.lateness_ns.begin(), w.lateness_ns.end(),
                      [min_lateness_ns](std::int64_t ns) { return ns >= min_lateness_ns; }));
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
