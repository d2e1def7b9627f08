// The Nth collective of a process group on every rank is the same collective: c10d issues the
// collectives of a group in the same order on all its ranks.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "job/job_internal.h"

namespace stepscope::job::detail {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::int64_t median_ns(std::vector<std::int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : values[n / 2 - 1] + (values[n / 2] - values[n / 2 - 1]) / 2;
}

std::vector<MatchedCollective> match_collectives(const std::vector<RankSummary>& ranks,
                                                 std::vector<std::string>& notes) {
  std::map<std::pair<std::string, std::int64_t>, MatchedCollective> by_key;
  std::int64_t kind_mismatches = 0;
  for (const RankSummary& rank : ranks) {
    for (const SummaryCollective& c : rank.collectives) {
      MatchedCollective& m = by_key[{c.group, c.order}];
      if (m.ranks.empty()) {
        m.kind = c.kind;
        m.group = c.group;
        m.order = c.order;
        m.bytes = c.bytes;
        m.group_size = c.group_size;
      } else if (m.kind != c.kind) {
        ++kind_mismatches;
        continue;
      }
      m.ranks.push_back(rank.rank);
      m.arrival_ns.push_back(c.start_ns);
      m.end_ns.push_back(c.end_ns);
      m.overlapped_ns.push_back(c.overlapped_ns);
      m.step.push_back(c.step);
    }
  }
  std::vector<MatchedCollective> out;
  std::int64_t single = 0;
  for (auto& [key, m] : by_key) {
    if (m.ranks.size() < 2) {
      ++single;
      continue;
    }
    out.push_back(std::move(m));
  }
  if (kind_mismatches > 0) {
    notes.push_back(std::to_string(kind_mismatches) +
                    " collectives differ in kind from the same position on another rank (the "
                    "ranks profiled different collectives); they are left out of the matching");
  }
  if (single > 0 && ranks.size() > 1) {
    notes.push_back(std::to_string(single) +
                    " collectives were found on one rank only (profiled windows differ or a "
                    "group has one rank here) and are not matched");
  }
  return out;
}

}  // namespace stepscope::job::detail
