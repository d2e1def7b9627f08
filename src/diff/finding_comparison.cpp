// Findings before and after, matched by (id, rank) when both runs have the same ranks, else by
// id alone (two single-rank traces of different ranks, or jobs of different sizes), then judged
// resolved, improved or persisting by the time they account for.
#include <cstdint>
#include <map>
#include <utility>

#include "diff/diff_parts.h"

namespace stepscope::diff {

namespace {

using FindingKey = std::pair<std::string, std::int64_t>;
constexpr std::int64_t kAnyRank = -1;

std::vector<std::int64_t> ranks_of(const Report& report) {
  std::vector<std::int64_t> ranks;
  for (const RankReport& rank : report.ranks) ranks.push_back(rank.analyses.trace->rank);
  return ranks;
}

std::map<FindingKey, const Finding*> findings_of(const Report& report, bool by_rank) {
  std::map<FindingKey, const Finding*> findings;
  for (const RankReport& rank : report.ranks) {
    for (const Finding& finding : rank.diagnosis.findings) {
      // The first finding with a key is kept: the largest (findings are ranked by gain).
      findings.emplace(FindingKey{finding.id, by_rank ? finding.rank : kAnyRank}, &finding);
    }
  }
  return findings;
}

// The first evidence of `before` and `after` (either may be null); the after side's figure only
// when it measures the same thing (same label and unit), so that "before → after" compares like
// with like.
FindingFigure headline_figure(const Finding* before, const Finding* after) {
  FindingFigure figure;
  const Evidence* b =
      before != nullptr && !before->evidence.empty() ? &before->evidence.front() : nullptr;
  const Evidence* a =
      after != nullptr && !after->evidence.empty() ? &after->evidence.front() : nullptr;
  const Evidence* named = b != nullptr ? b : a;
  if (named == nullptr) return figure;
  figure.label = named->label;
  figure.unit = named->unit;
  if (b != nullptr) figure.before = b->value;
  if (a != nullptr && a->label == figure.label && a->unit == figure.unit) figure.after = a->value;
  return figure;
}

// Judged by the time the finding accounts for per step, not by its title (kFindingResolvedShare
// in diff.h): a finding can outlive the problem, as input-bound did when data loading fell from
// 34.3 to 0.149 ms per step and the step shrank with it, keeping loading above the rule's share.
enum class Outcome : std::uint8_t { kResolved, kImproved, kPersisting };

Outcome outcome_of(const Finding& before, const Finding& after) {
  const auto owned_before = static_cast<double>(before.gain.bound_ns);
  const auto owned_after = static_cast<double>(after.gain.bound_ns);
  if (owned_before <= 0) return Outcome::kPersisting;  // no time to judge by: present on both sides
  if (owned_after < owned_before * kFindingResolvedShare) return Outcome::kResolved;
  if (owned_after <= owned_before * kFindingImprovedShare) return Outcome::kImproved;
  return Outcome::kPersisting;
}

FindingChange change_of(const Finding* before, const Finding* after) {
  const Finding& named = before != nullptr ? *before : *after;
  FindingChange change;
  change.id = named.id;
  change.title = named.title;
  change.rank = named.rank;
  change.figure = headline_figure(before, after);
  if (before != nullptr) {
    change.severity_before = std::string(to_string(before->severity));
    change.likely_gain_before_ns = before->gain.likely_ns;
    change.owned_before_ns = before->gain.bound_ns;
  }
  if (after != nullptr) {
    change.severity_after = std::string(to_string(after->severity));
    change.likely_gain_after_ns = after->gain.likely_ns;
    change.owned_after_ns = after->gain.bound_ns;
  }
  return change;
}

std::vector<FindingChange>& list_for(Outcome outcome, DiffResult& result) {
  switch (outcome) {
    case Outcome::kResolved:
      return result.findings_resolved;
    case Outcome::kImproved:
      return result.findings_improved;
    case Outcome::kPersisting:
      return result.findings_persisting;
  }
  return result.findings_persisting;
}

}  // namespace

void compare_findings(const Report& before, const Report& after, DiffResult& result) {
  const bool by_rank = ranks_of(before) == ranks_of(after);
  if (!by_rank) {
    result.notes.emplace_back(
        "the runs have different ranks: findings are matched by id alone, across ranks");
  }
  const auto b = findings_of(before, by_rank);
  const auto a = findings_of(after, by_rank);
  for (const auto& [key, fb] : b) {
    const auto found = a.find(key);
    if (found == a.end()) {
      result.findings_resolved.push_back(change_of(fb, nullptr));
      continue;
    }
    list_for(outcome_of(*fb, *found->second), result).push_back(change_of(fb, found->second));
  }
  for (const auto& [key, fa] : a) {
    if (b.count(key) == 0) result.findings_introduced.push_back(change_of(nullptr, fa));
  }
}

}  // namespace stepscope::diff
