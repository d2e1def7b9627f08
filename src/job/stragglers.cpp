// Stragglers: the ranks that arrive systematically late at the collectives against the median
// rank, by how much, where they lost the time (the phase and the ops that take longer on them
// than on the median rank), and who waits. Being late against the median, not being last, is the
// test: two equally slow ranks share being last, but each is as late as the other.
#include <fmt/core.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "job/job_internal.h"

namespace stepscope::job::detail {

namespace {

// Late by at least this share of the step (and 0.1 ms), per step: worth a finding.
constexpr double kMinLateShare = 0.05;
constexpr double kMinLateNs = 100'000;
// Systematic, not one long hiccup: late (by the job's margin for "clearly late") in 60 % of its
// steps or more (collectives outside steps count one by one; rank_waits), and more often than
// chance allows. A balanced rank arrives after the others' median at most half the time, so the
// count must reject a fair coin at 1 % (two balanced ranks on a busy host are each late at 50-80 %
// of 16 collectives by jitter). A rank late in nearly every step is systematic even when a short
// profile holds too few steps for the test.
constexpr double kMinShareLate = 0.6;
constexpr double kChanceOfLate = 0.5;
constexpr double kMaxChanceProbability = 0.01;
constexpr double kAlmostAlwaysLate = 0.9;
// An outlier among the ranks: its typical lateness (the median over its steps) beyond the
// ranks' median by 5 median absolute deviations, about 3.4 standard deviations of a normal
// spread. The median and the MAD stay put when a few ranks are slow, where a mean and a standard
// deviation would follow them; 5 keeps the ranks that jitter spreads out (a handful in 100,000
// at 3.4 sigma, which the minimum lateness and the majority test then hold back) from counting.
constexpr double kOutlierMads = 5;
// Beyond this many, the job is imbalanced rather than held up by a few ranks: the latest are
// named, and the explanations (a median over every rank per op and phase) stay bounded.
constexpr std::size_t kMaxStragglers = 16;
constexpr std::size_t kMaxOpEvidence = 3;

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

// One figure over every rank, sorted once, with `zeros` more values of 0 implied (the ranks
// without an op spend nothing on it): the other ranks' median for any one rank in O(log n).
class RankSample {
 public:
  RankSample(std::vector<double> values, std::size_t zeros)
      : values_(std::move(values)), zeros_(zeros) {
    std::sort(values_.begin(), values_.end());
    negatives_ = static_cast<std::size_t>(std::lower_bound(values_.begin(), values_.end(), 0.0) -
                                          values_.begin());
  }

  // The median with one occurrence of `value` (one of the sample's) left out; means of the two
  // middle values as median() does.
  [[nodiscard]] double median_without(double value) const {
    const std::size_t size = values_.size() + zeros_;
    if (size < 2) return 0;
    const std::size_t skipped = position_of(value);
    auto other = [this, skipped](std::size_t k) { return at(k < skipped ? k : k + 1); };
    const std::size_t n = size - 1;
    return n % 2 == 1 ? other(n / 2) : (other(n / 2 - 1) + other(n / 2)) / 2;
  }

 private:
  [[nodiscard]] double at(std::size_t k) const {
    if (k < negatives_) return values_[k];
    if (k < negatives_ + zeros_) return 0;
    return values_[k - zeros_];
  }
  [[nodiscard]] std::size_t position_of(double value) const {
    if (value == 0 && zeros_ > 0) return negatives_;
    const auto found = static_cast<std::size_t>(
        std::lower_bound(values_.begin(), values_.end(), value) - values_.begin());
    return found < negatives_ ? found : found + zeros_;
  }

  std::vector<double> values_;
  std::size_t zeros_ = 0;
  std::size_t negatives_ = 0;
};

// What lateness was counted over: "its 6 steps", "its 4 steps and 2 collectives outside steps".
std::string occasions(const RankWaits& w) {
  const auto loose = static_cast<std::int64_t>(w.lateness_ns.size()) - w.step_occasions;
  if (loose == 0) return fmt::format("its {} steps", w.step_occasions);
  if (w.step_occasions == 0) return fmt::format("its {} collectives", loose);
  return fmt::format("its {} steps and {} collectives outside steps", w.step_occasions, loose);
}

struct Candidate {
  std::size_t index = 0;  // into ranks and waits
  double late_per_step = 0;
  double typical_ns = 0;  // median lateness over its steps (or collectives outside steps)
  double share_late = 0;
};

double typical_lateness(const RankWaits& w) {
  std::vector<double> values(w.lateness_ns.begin(), w.lateness_ns.end());
  return median(std::move(values));
}

// The typical lateness a rank must exceed to stand out: the ranks' median plus kOutlierMads
// MADs. With fewer than three ranks there is no crowd to stand out of (the median lies between
// two ranks, and the MAD is half their gap), so only the other tests apply.
double outlier_threshold(const std::vector<double>& typical) {
  if (typical.size() < 3) return std::numeric_limits<double>::lowest();
  const double centre = median(typical);
  std::vector<double> deviations;
  deviations.reserve(typical.size());
  for (double t : typical) deviations.push_back(std::abs(t - centre));
  return centre + kOutlierMads * median(std::move(deviations));
}

// The systematically late outliers, latest first, at most kMaxStragglers.
std::vector<Candidate> late_ranks(const std::vector<RankSummary>& ranks,
                                  const std::vector<RankWaits>& waits, double step_ns) {
  std::vector<double> typical(ranks.size(), 0);
  std::vector<double> population;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (waits[i].lateness_ns.empty()) continue;
    typical[i] = typical_lateness(waits[i]);
    population.push_back(typical[i]);
  }
  const double threshold = outlier_threshold(population);
  const double min_late_per_step = std::max(kMinLateNs, kMinLateShare * step_ns);
  std::vector<Candidate> out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankWaits& w = waits[i];
    if (w.lateness_ns.empty()) continue;
    const auto occasion_count = static_cast<std::int64_t>(w.lateness_ns.size());
    Candidate c{i, w.late_ns / w.steps, typical[i],
                w.late_count / static_cast<double>(occasion_count)};
    const bool beyond_chance =
        c.share_late >= kAlmostAlwaysLate ||
        binomial_tail(occasion_count, static_cast<std::int64_t>(std::llround(w.late_count)),
                      kChanceOfLate) < kMaxChanceProbability;
    if (c.share_late >= kMinShareLate && beyond_chance && c.typical_ns > threshold &&
        c.late_per_step >= min_late_per_step) {
      out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end(), [&ranks](const Candidate& a, const Candidate& b) {
    return a.late_per_step != b.late_per_step ? a.late_per_step > b.late_per_step
                                              : ranks[a.index].rank < ranks[b.index].rank;
  });
  if (out.size() > kMaxStragglers) out.resize(kMaxStragglers);
  return out;
}

// Host time per step of each phase over every rank.
std::vector<RankSample> phase_samples(const std::vector<RankSummary>& ranks) {
  std::array<std::vector<double>, kPhaseCount> values;
  for (const RankSummary& r : ranks) {
    const auto means = phase_means(r);
    for (std::size_t p = 0; p < kPhaseCount; ++p) values[p].push_back(means[p]);
  }
  std::vector<RankSample> out;
  out.reserve(kPhaseCount);
  for (std::vector<double>& v : values) out.emplace_back(std::move(v), 0);
  return out;
}

// Time per step of the named ops over every rank (0 where a rank has no such op). A name a
// rank lists twice counts its last figure.
std::map<std::string, RankSample> op_samples(const std::vector<RankSummary>& ranks,
                                             const std::set<std::string>& names) {
  std::map<std::string, std::vector<std::pair<std::size_t, double>>> found;
  for (const std::string& name : names) found[name];
  for (std::size_t j = 0; j < ranks.size(); ++j) {
    for (const SummaryOp& op : ranks[j].ops) {
      const auto it = found.find(op.name);
      if (it == found.end()) continue;
      const double ns = static_cast<double>(op.ns_per_step);
      if (!it->second.empty() && it->second.back().first == j) {
        it->second.back().second = ns;
      } else {
        it->second.emplace_back(j, ns);
      }
    }
  }
  std::map<std::string, RankSample> out;
  for (auto& [name, per_rank] : found) {
    std::vector<double> values;
    values.reserve(per_rank.size());
    for (const auto& [rank_index, ns] : per_rank) values.push_back(ns);
    const std::size_t zeros = ranks.size() - values.size();
    out.emplace(name, RankSample(std::move(values), zeros));
  }
  return out;
}

}  // namespace

std::vector<Straggler> find_stragglers(const std::vector<RankSummary>& ranks,
                                       const std::vector<RankWaits>& waits,
                                       std::int64_t matched_count, double step_ns) {
  std::vector<Straggler> out;
  if (ranks.size() < 2 || matched_count == 0) return out;
  const std::vector<Candidate> late = late_ranks(ranks, waits, step_ns);
  if (late.empty()) return out;
  const std::vector<RankSample> phases = phase_samples(ranks);
  std::set<std::string> op_names;
  for (const Candidate& c : late) {
    for (const SummaryOp& op : ranks[c.index].ops) op_names.insert(op.name);
  }
  const std::map<std::string, RankSample> ops = op_samples(ranks, op_names);
  for (const Candidate& c : late) {
    const std::size_t i = c.index;
    const RankWaits& w = waits[i];
    Straggler s;
    s.rank = ranks[i].rank;
    s.share_last = w.last_count / static_cast<double>(matched_count);
    s.late_ns_per_step = c.late_per_step;
    s.share_late = c.share_late;
    // Phase: the largest excess of host time per step over the median of the other ranks.
    const auto mine = phase_means(ranks[i]);
    s.phase = "unknown";
    double best = 0;
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
      if (static_cast<Phase>(p) == Phase::kOther) continue;  // "other" names no place to look
      const double excess = mine[p] - phases[p].median_without(mine[p]);
      if (excess > best) {
        best = excess;
        s.phase = std::string(to_string(static_cast<Phase>(p)));
      }
    }
    // A phase that explains less than a fifth of the lateness is no explanation.
    if (best < 0.2 * c.late_per_step) s.phase = "unknown";
    s.phase_excess_ns = best;
    // Ops: longer here than on the median of the other ranks.
    std::vector<std::pair<double, std::string>> longer;
    for (const SummaryOp& op : ranks[i].ops) {
      const double ns = static_cast<double>(op.ns_per_step);
      const double med = ops.at(op.name).median_without(ns);
      const double excess = ns - med;
      if (excess > 0.1 * c.late_per_step) {
        longer.emplace_back(excess, fmt::format("{}: {:.2f} ms/step on rank {} vs {:.2f} ms/step "
                                                "on the median rank",
                                                op.name, ms(ns), s.rank, ms(med)));
      }
    }
    std::sort(longer.begin(), longer.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    s.evidence.push_back(fmt::format(
        "arrives late in {:.0f}% of {}, typically {:.2f} ms after the other ranks' median "
        "arrival, {:.2f} ms/step in all (last at {:.0f}% of the collectives)",
        100 * c.share_late, occasions(w), ms(c.typical_ns), ms(c.late_per_step),
        100 * s.share_last));
    if (s.phase != "unknown") {
      s.evidence.push_back(
          fmt::format("{} takes {:.2f} ms/step longer than on the median rank", s.phase, ms(best)));
    }
    for (std::size_t k = 0; k < longer.size() && k < kMaxOpEvidence; ++k) {
      s.evidence.push_back(longer[k].second);
    }
    for (std::size_t j = 0; j < ranks.size(); ++j) {
      if (j != i && waits[j].wait_ns >= 0.5 * c.late_per_step) {
        s.waiting_ranks.push_back(ranks[j].rank);
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace stepscope::job::detail
