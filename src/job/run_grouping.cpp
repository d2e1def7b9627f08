// Separate runs are not ranks: traces of one folder belong to one run when their world sizes
// agree, no rank appears twice, and their time ranges overlap (ranks of one job profile the same
// steps); anything else starts another run.
#include <algorithm>

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
  for (std::size_t i : order) {
    const RankSummary& s = summaries[i];
    RunInfo* home = nullptr;
    for (RunInfo& run : runs) {
      const bool same_size = run.world_size == s.world_size;
      const bool new_rank =
          std::find(run.ranks.begin(), run.ranks.end(), s.rank) == run.ranks.end();
      const bool overlaps = s.trace_start_ns <= run.end_ns + kStartSlackNs &&
                            s.trace_end_ns + kStartSlackNs >= run.start_ns;
      if (same_size && new_rank && overlaps) home = &run;
    }
    if (home == nullptr) {
      runs.push_back(RunInfo{});
      home = &runs.back();
      home->world_size = s.world_size;
      home->start_ns = s.trace_start_ns;
      home->end_ns = s.trace_end_ns;
    }
    home->ranks.push_back(s.rank);
    home->files.push_back(s.file);
    home->start_ns = std::min(home->start_ns, s.trace_start_ns);
    home->end_ns = std::max(home->end_ns, s.trace_end_ns);
  }
  std::sort(runs.begin(), runs.end(),
            [](const RunInfo& a, const RunInfo& b) { return a.start_ns < b.start_ns; });
  for (std::size_t i = 0; i < runs.size(); ++i) runs[i].index = static_cast<std::int64_t>(i);
  return runs;
}

}  // namespace stepscope::job
