// Separate runs are not ranks: traces of one folder belong to one run when their world sizes
// agree and their time ranges overlap (ranks of one job profile the same steps); anything else
// starts another run. A rank a run already holds is a duplicate there (a copy, or a rank given
// twice), not a run of its own: two runs of the same job never overlap in time.
#include <algorithm>
#include <unordered_set>

#include "stepscope/job/job_analysis.h"

namespace stepscope::job {

namespace {

// Ranks on different hosts start profiling a little apart; a run's ranks overlap within this.
constexpr std::int64_t kStartSlackNs = 1'000'000'000;

}  // namespace

std::vector<RunInfo> group_runs(const std::vector<RankSummary>& summaries) {
  std::vector<std::size_t> order(summaries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&summaries](std::size_t a, std::size_t b) {
    return summaries[a].trace_start_ns < summaries[b].trace_start_ns;
  });
  std::vector<RunInfo> runs;
  std::vector<std::unordered_set<std::int64_t>> ranks_of;  // parallel to runs
  for (std::size_t i : order) {
    const RankSummary& s = summaries[i];
    std::size_t home = runs.size();
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const RunInfo& run = runs[k];
      const bool overlaps = s.trace_start_ns <= run.end_ns + kStartSlackNs &&
                            s.trace_end_ns + kStartSlackNs >= run.start_ns;
      if (run.world_size == s.world_size && overlaps) home = k;
    }
    if (home == runs.size()) {
      runs.push_back(RunInfo{});
      ranks_of.emplace_back();
      runs.back().world_size = s.world_size;
      runs.back().start_ns = s.trace_start_ns;
      runs.back().end_ns = s.trace_end_ns;
    }
    RunInfo& run = runs[home];
    if (!ranks_of[home].insert(s.rank).second) {
      run.duplicates.push_back(i);
      continue;
    }
    run.ranks.push_back(s.rank);
    run.files.push_back(s.file);
    run.members.push_back(i);
    run.start_ns = std::min(run.start_ns, s.trace_start_ns);
    run.end_ns = std::max(run.end_ns, s.trace_end_ns);
  }
  std::sort(runs.begin(), runs.end(),
            [](const RunInfo& a, const RunInfo& b) { return a.start_ns < b.start_ns; });
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].index = static_cast<std::int64_t>(i);
  return runs;
}

}  // namespace stepscope::job
