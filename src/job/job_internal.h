// The steps of the job analysis, one per file in src/job/, composed by job_analysis.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "stepscope/job/job_analysis.h"

namespace stepscope::job::detail {

// Median of a sample (mean of the two middle values); 0 for an empty one.
double median(std::vector<double> values);
std::int64_t median_ns(std::vector<std::int64_t> values);
// The median of `sorted` (ascending) with one occurrence of `value` (one of its values) left
// out: the other ranks' median, computed for every rank from one sort. 0 when nothing is left.
std::int64_t median_without(const std::vector<std::int64_t>& sorted, std::int64_t value);

// Collectives keyed by (process group, order in the group); only those seen on two ranks or
// more. Times are each rank's own clock; `align` moves them to the reference clock.
std::vector<MatchedCollective> match_collectives(const std::vector<RankSummary>& ranks,
                                                 std::vector<std::string>& notes);

// Offsets from collective ends (ends are simultaneous up to transfer skew): the median over
// collectives of each rank's end minus the reference rank's (the lowest rank).
std::vector<ClockOffset> estimate_clock_offsets(const std::vector<RankSummary>& ranks,
                                                const std::vector<MatchedCollective>& matched,
                                                std::vector<std::string>& notes);

// Moves times to the reference clock and fills arrivals, last arrival, lateness and transfer.
void align(std::vector<MatchedCollective>& matched, const std::vector<ClockOffset>& offsets);

// Per-rank figures per step: wait, exposed communication after waiting is removed; and how late
// the rank arrives against the others. A rank's lateness at a collective is its arrival minus the
// median arrival of the other ranks there: the median rank's arrival, and with two ranks the
// other rank's (the whole gap, which is what the other waits).
struct RankWaits {
  std::int64_t rank = 0;
  double steps = 1;
  double wait_ns = 0;     // per step
  double exposed_ns = 0;  // per step
  double last_count = 0;  // collectives at which it arrived last (by a margin)
  // Its lateness against the others' median arrival, summed per kept step over the step's
  // collectives (a rank slow in compute is late at the step's first collective, and the others
  // then leave with it), and one by one for collectives outside kept steps.
  std::vector<std::int64_t> lateness_ns;
  std::int64_t step_occasions = 0;  // how many of lateness_ns are kept steps
  double late_count = 0;            // entries of lateness_ns late by the margin or more
  double late_ns = 0;  // Σ those lateness values inside the steps the per-step figures count
};
std::vector<RankWaits> rank_waits(const std::vector<RankSummary>& ranks,
                                  const std::vector<MatchedCollective>& matched,
                                  std::int64_t min_lateness_ns);

std::vector<RankRow> rank_table(const std::vector<RankSummary>& ranks,
                                const std::vector<RankWaits>& waits);

std::vector<Straggler> find_stragglers(const std::vector<RankSummary>& ranks,
                                       const std::vector<RankWaits>& waits,
                                       std::int64_t matched_count, double step_ns);

std::vector<CollectiveRow> collective_table(const std::vector<MatchedCollective>& matched);

// Sets each row's link peak and busbw share of it; rows stay unknown when `link_peak_gb_per_s`
// is absent, not positive or not finite.
void set_link_share(std::vector<CollectiveRow>& rows, std::optional<double> link_peak_gb_per_s);

Scaling scaling_efficiency(const std::vector<RankRow>& rows);

// Job findings, the verdict, and the rank findings the job supersedes (in `rows`).
void diagnose_job(JobAnalysis& job, const std::vector<RankSummary>& ranks,
                  const std::vector<RankWaits>& waits, double step_ns);

}  // namespace stepscope::job::detail
