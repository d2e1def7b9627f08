// Stragglers: the rank that arrives last at most collectives, by how much, where it lost the
// time (the phase and the ops that take longer on it than on the median rank), and who waits.
#include <fmt/core.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "job/job_internal.h"

namespace stepscope::job::detail {

namespace {

// Last at 60 % of the collectives or more: a systematic straggler, not jitter (with two ranks
// one of them is always last).
constexpr double kMinShareLast = 0.6;
// Late by at least this share of the step (and 0.1 ms): worth a finding.
constexpr double kMinLateShare = 0.05;
constexpr double kMinLateNs = 100'000;
constexpr std::size_t kMaxOpEvidence = 3;
// Last more often than chance allows: with equal ranks each is last at 1 / world_size of the
// collectives, so a share is a straggler's only when a binomial test rejects chance at 1 %.
// (Two balanced ranks on a busy host are each last at 50-80 % of 16 collectives by jitter.)
// A rank last at nearly every collective is a straggler even when a short profile holds too few
// collectives for the test.
constexpr double kMaxChanceProbability = 0.01;
constexpr double kAlmostAlwaysLast = 0.9;

// P(X >= k) for X ~ Binomial(n, p), summed in log space so that large n stays finite.
double binomial_tail(std::int64_t n, std::int64_t k, double p) {
  if (k <= 0) return 1.0;
  if (k > n || p <= 0) return 0.0;
  double tail = 0;
  for (std::int64_t i = k; i <= n; ++i) {
    const double log_term =
        std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
        std::lgamma(static_cast<double>(n - i) + 1) + static_cast<double>(i) * std::log(p) +
        static_cast<double>(n - i) * std::log1p(-p);
    tail += std::exp(log_term);
  }
  return std::min(tail, 1.0);
}

std::array<double, kPhaseCount> phase_means(const RankSummary& r) {
  std::array<double, kPhaseCount> out{};
  if (r.steps.empty()) return out;
  for (const SummaryStep& s : r.steps) {
    for (std::size_t p = 0; p < kPhaseCount; ++p) out[p] += static_cast<double>(s.phase_ns[p]);
  }
  for (double& v : out) v /= static_cast<double>(r.steps.size());
  return out;
}

double ms(double ns) { return ns / 1e6; }

}  // namespace

std::vector<Straggler> find_stragglers(const std::vector<RankSummary>& ranks,
                                       const std::vector<RankWaits>& waits,
                                       std::int64_t matched_count, double step_ns) {
  std::vector<Straggler> out;
  if (ranks.size() < 2 || matched_count == 0) return out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankWaits& w = waits[i];
    const double share = w.last_count / static_cast<double>(matched_count);
    const double late_per_step = w.late_ns / w.steps;
    const double chance = 1.0 / static_cast<double>(ranks.size());
    const bool beyond_chance =
        share >= kAlmostAlwaysLast ||
        binomial_tail(matched_count, static_cast<std::int64_t>(std::llround(w.last_count)),
                      chance) < kMaxChanceProbability;
    if (share < kMinShareLast || !beyond_chance ||
        late_per_step < std::max(kMinLateNs, kMinLateShare * step_ns)) {
      continue;
    }
    Straggler s;
    s.rank = ranks[i].rank;
    s.share_last = share;
    s.late_ns_per_step = late_per_step;
    // Phase: the largest excess of host time per step over the median of the other ranks.
    const auto mine = phase_means(ranks[i]);
    std::array<std::vector<double>, kPhaseCount> others;
    for (std::size_t j = 0; j < ranks.size(); ++j) {
      if (j == i) continue;
      const auto theirs = phase_means(ranks[j]);
      for (std::size_t p = 0; p < kPhaseCount; ++p) others[p].push_back(theirs[p]);
    }
    s.phase = "unknown";
    double best = 0;
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      if (static_cast<Phase>(p) == Phase::kOther) continue;  // "other" names no place to look
      const double excess = mine[p] - median(others[p]);
      if (excess > best) {
        best = excess;
        s.phase = std::string(to_string(static_cast<Phase>(p)));
      }
    }
    // A phase that explains less than a fifth of the lateness is no explanation.
    if (best < 0.2 * late_per_step) s.phase = "unknown";
    s.phase_excess_ns = best;
    // Ops: longer here than on the median of the other ranks.
    std::vector<std::pair<double, std::string>> longer;
    for (const SummaryOp& op : ranks[i].ops) {
      std::vector<double> theirs;
      for (std::size_t j = 0; j < ranks.size(); ++j) {
        if (j == i) continue;
        double ns = 0;
        for (const SummaryOp& other : ranks[j].ops) {
          if (other.name == op.name) ns = static_cast<double>(other.ns_per_step);
        }
        theirs.push_back(ns);
      }
      const double med = median(theirs);
      const double excess = static_cast<double>(op.ns_per_step) - med;
      if (excess > 0.1 * late_per_step) {
        longer.emplace_back(
            excess, fmt::format("{}: {:.2f} ms/step on rank {} vs {:.2f} ms/step on the "
                                "median rank",
                                op.name, ms(static_cast<double>(op.ns_per_step)), s.rank, ms(med)));
      }
    }
    std::sort(longer.begin(), longer.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    s.evidence.push_back(fmt::format(
        "arrives last at {:.0f}% of {} matched collectives, {:.2f} ms/step after the others",
        100 * share, matched_count, ms(late_per_step)));
    if (s.phase != "unknown") {
      s.evidence.push_back(
          fmt::format("{} takes {:.2f} ms/step longer than on the median rank", s.phase, ms(best)));
    }
    for (std::size_t k = 0; k < longer.size() && k < kMaxOpEvidence; ++k) {
      s.evidence.push_back(longer[k].second);
    }
    for (std::size_t j = 0; j < ranks.size(); ++j) {
      if (j != i && waits[j].wait_ns >= 0.5 * late_per_step) {
        s.waiting_ranks.push_back(ranks[j].rank);
      }
    }
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const Straggler& a, const Straggler& b) {
    return a.late_ns_per_step != b.late_ns_per_step ? a.late_ns_per_step > b.late_ns_per_step
                                                    : a.rank < b.rank;
  });
  return out;
}

}  // namespace stepscope::job::detail
