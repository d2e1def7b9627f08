// The reduce: composes the job analysis steps over the summaries of one run.
#include "stepscope/job/job_analysis.h"

#include <fmt/core.h>
#include <algorithm>
#include <map>
#include <set>

#include "job/job_internal.h"

namespace stepscope::job {

namespace {

// A rank counts as last only when it is clearly last: at least this much, or this share of the
// step, after the others (below that, arrival order is jitter).
constexpr std::int64_t kMinLatenessNs = 50'000;
constexpr double kMinLatenessShare = 0.01;

std::string list(const std::vector<std::int64_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(ranks[i]);
  }
  if (ranks.size() > 16) out += fmt::format(" and {} more", ranks.size() - 16);
  return out;
}

// The ranks below the world size with no summary, counted from the ranks present (sorted):
// the world size is the trace's word, and sizes nothing here.
struct MissingRanks {
  std::int64_t count = 0;
  std::vector<std::int64_t> first;  // up to kListed of them
};

MissingRanks missing_ranks(const std::vector<RankSummary>& sorted, std::int64_t world_size) {
  constexpr std::size_t kListed = 16;
  MissingRanks missing;
  std::int64_t next = 0;
  const auto gap_until = [&](std::int64_t end) {
    if (end <= next) return;
    missing.count += end - next;
    for (std::int64_t r = next; r < end && missing.first.size() < kListed; ++r) {
      missing.first.push_back(r);
    }
  };
  for (const RankSummary& r : sorted) {
    if (r.rank < 0 || r.rank >= world_size) continue;
    gap_until(r.rank);
    next = std::max(next, r.rank + 1);
  }
  gap_until(world_size);
  return missing;
}

void check_ranks(const std::vector<RankSummary>& ranks, JobAnalysis& job) {
  if (job.world_size > 0) {
    const MissingRanks missing = missing_ranks(ranks, job.world_size);
    if (missing.count > 0) {
      std::string listed = list(missing.first);
      if (missing.count > static_cast<std::int64_t>(missing.first.size())) {
        listed += fmt::format(" and {} more",
                              missing.count - static_cast<std::int64_t>(missing.first.size()));
      }
      job.notes.push_back(fmt::format(
          "{} of {} ranks have no trace here (ranks {}): they are not compared, and a straggler "
          "among them would show only as waiting",
          missing.count, job.world_size, listed));
    }
  }
  std::vector<std::int64_t> no_device;
  std::vector<std::int64_t> no_steps;
  bool any_device = false;
  for (const RankSummary& r : ranks) {
    any_device = any_device || r.has_device_activity;
    if (r.steps.empty()) no_steps.push_back(r.rank);
  }
  for (const RankSummary& r : ranks) {
    if (any_device && !r.has_device_activity) no_device.push_back(r.rank);
  }
  if (!no_device.empty()) {
    job.notes.push_back("ranks " + list(no_device) +
                        " have no GPU events: their collectives cannot be matched with the "
                        "GPU ranks' kernels, and their compute is not compared");
  }
  if (!no_steps.empty()) {
    job.notes.push_back("ranks " + list(no_steps) +
                        " have no kept steps: no step times; their collectives are still matched");
  }
  // Different profiled steps: compare only what the ranks share.
  std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> by_steps;
  for (const RankSummary& r : ranks) {
    if (r.steps.empty()) continue;
    std::vector<std::int64_t> numbers;
    for (const SummaryStep& s : r.steps) numbers.push_back(s.number);
    by_steps[numbers].push_back(r.rank);
  }
  if (by_steps.size() > 1) {
    std::string detail;
    for (const auto& [numbers, rs] : by_steps) {
      detail += fmt::format("{}ranks {}: steps {}..{}", detail.empty() ? "" : "; ", list(rs),
                            numbers.front(), numbers.back());
    }
    job.notes.push_back("the ranks profiled different steps (" + detail +
                        "): step times are compared as they are, collectives by their order");
  }
}

// A rank given twice is analysed once: counting it twice would halve the others' share of every
// wait and median.
void note_duplicates(const std::vector<RankSummary>& summaries, const RunInfo& run,
                     std::vector<std::string>& notes) {
  constexpr std::size_t kListed = 16;
  std::string listed;
  for (std::size_t k = 0; k < run.duplicates.size() && k < kListed; ++k) {
    const RankSummary& copy = summaries[run.duplicates[k]];
    listed += fmt::format("{}rank {} ({})", k == 0 ? "" : "; ", copy.rank, copy.file);
  }
  if (run.duplicates.size() > kListed) {
    listed += fmt::format(" and {} more", run.duplicates.size() - kListed);
  }
  if (!listed.empty()) {
    notes.push_back(fmt::format(
        "{} summaries repeat a rank already given for the same time: {}; each rank is analysed "
        "once, from the first given",
        run.duplicates.size(), listed));
  }
}

}  // namespace

JobAnalysis analyze_job(std::vector<RankSummary> summaries, const JobOptions& options) {
  JobAnalysis job;
  job.runs = group_runs(summaries);
  if (!job.runs.empty()) {
    std::size_t chosen = job.runs.size() - 1;
    if (options.run && *options.run >= 0 &&
        static_cast<std::size_t>(*options.run) < job.runs.size()) {
      chosen = static_cast<std::size_t>(*options.run);
    } else if (options.run) {
      job.notes.push_back(fmt::format("there is no run {} here (runs 0..{}); analysing the newest",
                                      *options.run, job.runs.size() - 1));
    }
    job.runs[chosen].analysed = true;
    if (job.runs.size() > 1) {
      job.notes.push_back(fmt::format(
          "{} separate runs found (different world sizes, the same rank twice, or time ranges "
          "that do not overlap); analysing run {} (ranks {}); choose another with --run N",
          job.runs.size(), chosen, list(job.runs[chosen].ranks)));
    }
    const RunInfo& run = job.runs[chosen];
    note_duplicates(summaries, run, job.notes);
    std::vector<RankSummary> kept;
    kept.reserve(run.members.size());
    for (const std::size_t i : run.members) kept.push_back(std::move(summaries[i]));
    summaries = std::move(kept);
  }
  std::sort(summaries.begin(), summaries.end(),
            [](const RankSummary& a, const RankSummary& b) { return a.rank < b.rank; });
  for (const RankSummary& s : summaries) {
    if (s.world_size > job.world_size) job.world_size = s.world_size;
  }
  check_ranks(summaries, job);

  std::vector<MatchedCollective> matched = detail::match_collectives(summaries, job.notes);
  job.clock_offsets = detail::estimate_clock_offsets(summaries, matched, job.notes);
  detail::align(matched, job.clock_offsets);
  job.matched_collectives = static_cast<std::int64_t>(matched.size());

  std::vector<double> step_p50;
  for (const RankSummary& r : summaries) {
    std::vector<double> d;
    for (const SummaryStep& s : r.steps) d.push_back(static_cast<double>(s.duration_ns()));
    if (!d.empty()) step_p50.push_back(detail::median(d));
  }
  const double step_ns = detail::median(step_p50);
  const auto min_lateness = std::max<std::int64_t>(
      kMinLatenessNs, static_cast<std::int64_t>(kMinLatenessShare * step_ns));
  const std::vector<detail::RankWaits> waits = detail::rank_waits(summaries, matched, min_lateness);
  job.ranks = detail::rank_table(summaries, waits);
  job.stragglers = detail::find_stragglers(summaries, waits, job.matched_collectives, step_ns);
  job.collectives = detail::collective_table(matched);
  detail::set_link_share(job.collectives, options.link_peak_gb_per_s);
  job.scaling = detail::scaling_efficiency(job.ranks);
  detail::diagnose_job(job, summaries, waits, step_ns);
  if (summaries.size() > 1 && matched.empty()) {
    job.notes.emplace_back(
        "no collective was matched across ranks (none recorded, or recorded without kernels): "
        "waiting and stragglers cannot be measured; only step times are compared");
  }
  job.matched = std::move(matched);
  job.summaries = std::move(summaries);
  return job;
}

}  // namespace stepscope::job
