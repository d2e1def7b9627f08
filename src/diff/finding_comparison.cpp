// Findings before and after, matched by (id, rank) when both runs have the same ranks, else by
// id alone (two single-rank traces of different ranks, or jobs of different sizes).
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
    FindingChange change{
        key.first, fb->title,          fb->rank, std::string(to_string(fb->severity)),
        "",        fb->gain.likely_ns, 0,        {}};
    const auto found = a.find(key);
    if (found == a.end()) {
      change.figure = headline_figure(fb, nullptr);
      result.findings_resolved.push_back(std::move(change));
      continue;
    }
    change.severity_after = std::string(to_string(found->second->severity));
    change.likely_gain_after_ns = found->second->gain.likely_ns;
    change.figure = headline_figure(fb, found->second);
    result.findings_persisting.push_back(std::move(change));
  }
  for (const auto& [key, fa] : a) {
    if (b.count(key) != 0) continue;
    result.findings_introduced.push_back({key.first, fa->title, fa->rank, "",
                                          std::string(to_string(fa->severity)), 0,
                                          fa->gain.likely_ns, headline_figure(nullptr, fa)});
  }
}

}  // namespace stepscope::diff
