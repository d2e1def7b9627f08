// Clock alignment from the collectives themselves: every rank leaves a collective at nearly the
// same moment (up to transfer skew), so the median difference of ends to a reference rank is the
// offset of that rank's clock; the median ignores the few collectives that end skewed.
#include <algorithm>
#include <cstdlib>
#include <map>

#include "job/job_internal.h"

namespace stepscope::job::detail {

std::vector<ClockOffset> estimate_clock_offsets(const std::vector<RankSummary>& ranks,
                                                const std::vector<MatchedCollective>& matched,
                                                std::vector<std::string>& notes) {
  std::vector<ClockOffset> out;
  if (ranks.empty()) return out;
  const std::int64_t reference = ranks.front().rank;  // summaries are sorted by rank
  std::map<std::int64_t, std::vector<std::int64_t>> differences;
  // Causality bounds: no rank leaves a collective before the other has arrived, so
  // offset <= end_r - arrival_ref and offset >= arrival_r - end_ref, for every collective.
  std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> bounds;
  for (const MatchedCollective& m : matched) {
    const auto ref = std::find(m.ranks.begin(), m.ranks.end(), reference);
    if (ref == m.ranks.end()) continue;
    const auto k = static_cast<std::size_t>(ref - m.ranks.begin());
    const std::int64_t ref_end = m.end_ns[k];
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
      differences[m.ranks[i]].push_back(m.end_ns[i] - ref_end);
      const std::int64_t lo = m.arrival_ns[i] - ref_end;
      const std::int64_t hi = m.end_ns[i] - m.arrival_ns[k];
      auto [it, fresh] = bounds.try_emplace(m.ranks[i], lo, hi);
      if (!fresh) {
        it->second.first = std::max(it->second.first, lo);
        it->second.second = std::min(it->second.second, hi);
      }
    }
  }
  std::vector<std::int64_t> unaligned;
  for (const RankSummary& rank : ranks) {
    ClockOffset offset;
    offset.rank = rank.rank;
    const auto found = differences.find(rank.rank);
    if (found != differences.end() && !found->second.empty()) {
      offset.offset_ns = median_ns(found->second);
      offset.collectives = static_cast<std::int64_t>(found->second.size());
      std::vector<std::int64_t> deviations;
      for (std::int64_t d : found->second) deviations.push_back(std::abs(d - offset.offset_ns));
      offset.spread_ns = median_ns(deviations);
      // Ends that scatter more than the offset they suggest (host-side collectives such as
      // gloo's end when each rank's worker finishes) are no evidence of an offset, when no
      // offset is consistent with causality too.
      const auto [lo, hi] = bounds.at(rank.rank);
      if (lo <= 0 && 0 <= hi && std::abs(offset.offset_ns) < 4 * offset.spread_ns) {
        offset.offset_ns = 0;
      }
      if (lo <= hi) offset.offset_ns = std::clamp(offset.offset_ns, lo, hi);
    } else if (rank.rank != reference) {
      unaligned.push_back(rank.rank);
    }
    out.push_back(offset);
  }
  if (!unaligned.empty() && !matched.empty()) {
    std::string list;
    for (std::int64_t r : unaligned) {
      if (!list.empty()) list += ", ";
      list += std::to_string(r);
    }
    notes.push_back("ranks " + list + " share no collective with reference rank " +
                    std::to_string(reference) + ": their clocks are taken as they are");
  }
  return out;
}

void align(std::vector<MatchedCollective>& matched, const std::vector<ClockOffset>& offsets) {
  std::map<std::int64_t, std::int64_t> offset_of;
  for (const ClockOffset& o : offsets) offset_of[o.rank] = o.offset_ns;
  for (MatchedCollective& m : matched) {
    for (std::size_t i = 0; i < m.ranks.size(); ++i) {
      const std::int64_t offset = offset_of[m.ranks[i]];
      m.arrival_ns[i] -= offset;
      m.end_ns[i] -= offset;
    }
    const auto last = std::max_element(m.arrival_ns.begin(), m.arrival_ns.end());
    m.last_arrival_ns = *last;
    m.last_rank = m.ranks[static_cast<std::size_t>(last - m.arrival_ns.begin())];
    // Against the others' median: with two ranks, the whole gap.
    std::vector<std::int64_t> others = m.arrival_ns;
    others.erase(others.begin() + (last - m.arrival_ns.begin()));
    m.lateness_ns = m.last_arrival_ns - median_ns(others);
    const std::int64_t latest_end = *std::max_element(m.end_ns.begin(), m.end_ns.end());
    m.transfer_ns = std::max<std::int64_t>(0, latest_end - m.last_arrival_ns);
  }
}

}  // namespace stepscope::job::detail
