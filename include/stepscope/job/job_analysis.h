// The job-level analysis (the "reduce"): pure functions over rank summaries, never a Trace.
// Collectives are matched across ranks, clocks aligned from their ends, waiting separated from
// transfer, stragglers found and explained, and the job diagnosed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/diagnosis/finding.h"
#include "stepscope/job/rank_summary.h"

namespace stepscope::job {

// One collective seen on every rank that has it, times on the reference clock.
struct MatchedCollective {
  std::string kind;
  std::string group;
  std::int64_t order = 0;
  std::int64_t bytes = kAbsent;
  std::int64_t group_size = kAbsent;
  std::vector<std::int64_t> ranks;       // ranks that recorded it
  std::vector<std::int64_t> arrival_ns;  // per rank (same order as ranks), aligned
  std::vector<std::int64_t> end_ns;      // aligned
  std::vector<std::int64_t> overlapped_ns;
  std::vector<std::int64_t> step;  // each rank's step number, -1 none
  std::int64_t last_arrival_ns = 0;
  std::int64_t last_rank = -1;   // the rank that arrived last
  std::int64_t lateness_ns = 0;  // last arrival - median arrival
  std::int64_t transfer_ns = 0;  // latest end - last arrival
  [[nodiscard]] std::int64_t wait_ns(std::size_t i) const {
    return last_arrival_ns - arrival_ns[i];
  }
};

struct ClockOffset {
  std::int64_t rank = 0;
  std::int64_t offset_ns = 0;    // rank clock - reference clock
  std::int64_t collectives = 0;  // how many ends the estimate rests on
  std::int64_t spread_ns = 0;    // median absolute deviation of the end differences
};

struct RankRow {
  std::int64_t rank = 0;
  std::int64_t steps = 0;
  double step_p50_ns = 0;
  double step_max_ns = 0;
  double compute_ns = 0;       // per step
  double exposed_comm_ns = 0;  // per step: transfer time no other work overlapped
  double wait_ns = 0;          // per step: waiting for the last rank to arrive
  double idle_ns = 0;          // per step
  std::string top_finding;     // id of the rank's top finding after the job supersedes some
  std::string top_finding_title;
};

struct Straggler {
  std::int64_t rank = 0;
  double late_ns_per_step = 0;  // by how much it arrives after the median rank, per step
  double share_last = 0;        // of matched collectives at which it arrived last
  double share_late = 0;        // of its steps in which it arrived late against the median rank
  std::string phase;            // where it lost the time: forward, backward, ... or "unknown"
  double phase_excess_ns = 0;   // per step, against the median rank
  std::vector<std::string> evidence;  // ops longer than on the median rank, with figures
  std::vector<std::int64_t> waiting_ranks;
};

struct CollectiveRow {
  std::string kind;
  std::int64_t min_bytes = 0;  // [min, max): a power-of-two bucket; -1 when sizes are unknown
  std::int64_t max_bytes = 0;
  std::int64_t count = 0;        // matched collectives
  std::int64_t total_ns = 0;     // Σ mean duration over ranks
  std::int64_t transfer_ns = 0;  // Σ latest end - last arrival
  std::int64_t wait_ns = 0;      // Σ mean wait over ranks
  std::int64_t bytes = 0;
  double algbw_gb_per_s = 0;  // S / transfer time (nccl-tests), 0 when unknown
  double busbw_gb_per_s = 0;
  bool latency_bound = false;  // small messages: the time is latency, not bandwidth
  // The link's peak bandwidth (GB/s) and busbw as a share of it: no trace names its link
  // (NVLink, PCIe, InfiniBand...), so both are unknown unless JobOptions states the peak.
  std::optional<double> link_peak_gb_per_s;
  std::optional<double> busbw_share_of_link_peak;  // busbw / link peak; unknown without busbw
};

struct Scaling {
  double efficiency = 0;  // ideal / actual
  double ideal_step_ns = 0;
  double actual_step_ns = 0;
  bool applicable = false;
};

struct JobFinding {
  Finding finding;  // finding.rank: the main rank concerned
  std::vector<std::int64_t> ranks;
};

struct RunInfo {
  std::int64_t index = 0;  // 0: oldest
  std::int64_t world_size = kAbsent;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::vector<std::int64_t> ranks;
  std::vector<std::string> files;
  bool analysed = false;
  // Positions in the summaries grouped (not reported): the run's ranks, and the summaries of a
  // rank it already holds at the same time (a copy, or a rank given twice), counted once.
  std::vector<std::size_t> members;
  std::vector<std::size_t> duplicates;
};

struct JobAnalysis {
  std::string verdict;
  std::vector<JobFinding> findings;  // ranked by likely saving
  std::vector<RankRow> ranks;
  std::vector<Straggler> stragglers;
  std::vector<CollectiveRow> collectives;
  std::vector<ClockOffset> clock_offsets;
  Scaling scaling;
  std::vector<RunInfo> runs;
  std::vector<std::string> notes;
  std::int64_t world_size = kAbsent;
  std::int64_t matched_collectives = 0;
  std::vector<MatchedCollective> matched;  // for renderers (wait picture); not in JSON
  std::vector<RankSummary> summaries;      // the ranks analysed (heat map), sorted by rank
};

// Runs: summaries of one folder grouped into separate runs (different world sizes, time ranges
// that do not overlap), oldest first. A rank seen again within a run's time is a duplicate of
// that run's rank, not another run.
std::vector<RunInfo> group_runs(const std::vector<RankSummary>& summaries);

struct JobOptions {
  std::optional<std::int64_t> run;  // index into group_runs' result; default: the newest
  // Peak bandwidth of the link the collectives run over, GB/s (1e9 bytes/s, busbw's unit), as
  // the user states it (--link-gbps); ignored unless positive and finite.
  std::optional<double> link_peak_gb_per_s;
};

// The job analysis of `summaries` (any order). Summaries of other runs are left out and said so.
JobAnalysis analyze_job(std::vector<RankSummary> summaries, const JobOptions& options = {});

}  // namespace stepscope::job
