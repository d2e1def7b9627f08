// The job's diagnosis: findings that only the whole job can see (stragglers, imbalance,
// exposed communication after waiting is removed, latency-bound collectives), the verdict, and
// the rank findings they supersede: from inside a rank, waiting for a slow peer looks like a
// slow collective, so a rank's "exposed-communication" or "cpu-collectives" that waiting
// explains is not its answer.
#include <fmt/core.h>
#include <algorithm>
#include <map>
#include <string>

#include "job/job_internal.h"

namespace stepscope::job::detail {

namespace {

constexpr double kMinWaitShare = 0.05;     // waiting worth a finding, of the step
constexpr double kMinExposedShare = 0.10;  // exposed transfer worth a finding, of the step
constexpr double kMinSmallShare = 0.05;    // latency-bound collectives worth a finding

double ms(double ns) { return ns / 1e6; }

// A rank's own verdict on its collectives (GPU: exposed-communication; gloo on the CPU:
// cpu-collectives): both include the time spent waiting for the slowest peer.
bool is_rank_communication_finding(const std::string& id) {
  return id == "exposed-communication" || id == "cpu-collectives";
}

ExpectedGain gain_of(double likely_ns, double bound_ns, double step_ns, std::string method) {
  ExpectedGain g;
  g.likely_ns = static_cast<std::int64_t>(likely_ns);
  g.bound_ns = static_cast<std::int64_t>(bound_ns);
  g.likely_share = step_ns > 0 ? likely_ns / step_ns : 0;
  g.bound_share = step_ns > 0 ? bound_ns / step_ns : 0;
  g.method = std::move(method);
  return g;
}

// The fix names the cause the phase points to, not the collective.
std::string straggler_fix(const Straggler& s, bool on_device) {
  if (s.phase == "data_loading") {
    return fmt::format(
        "Rank {} waits for its input: give its DataLoader more workers (num_workers), "
        "pin_memory=True and prefetching, and check its storage or sampler; every rank should "
        "load the same amount of data per step.",
        s.rank);
  }
  if (s.rank == 0 && (s.phase == "optimizer" || s.phase == "unknown")) {
    return "Rank 0 does extra work inside the step (logging, metrics, checkpointing or "
           "evaluation): move it outside the training step, do it every N steps, or make it "
           "asynchronous so the other ranks do not wait for it.";
  }
  if (s.phase == "forward" || s.phase == "backward") {
    return fmt::format(
        "Balance the work per rank: rank {} spends longer in {}, so it gets more or longer "
        "samples (uneven batch sizes or sequence lengths: use DistributedSampler with "
        "drop_last=True and bucket or pack sequences to equal lengths). If every rank gets the "
        "same inputs, rank {}'s {} is slower: check its clocks and temperature (thermal or power "
        "throttling) and other processes on its host.",
        s.rank, s.phase, s.rank, on_device ? "GPU" : "CPU");
  }
  return fmt::format(
      "Find what else runs on rank {}'s host (other processes, CPU frequency, NUMA placement, "
      "a noisy neighbour) or what work only rank {} does in the step, and move or balance it.",
      s.rank, s.rank);
}

}  // namespace

void diagnose_job(JobAnalysis& job, const std::vector<RankSummary>& ranks,
                  const std::vector<RankWaits>& waits, double step_ns) {
  const bool on_device = std::any_of(ranks.begin(), ranks.end(),
                                     [](const RankSummary& r) { return r.has_device_activity; });
  std::vector<double> wait_per_rank;
  wait_per_rank.reserve(waits.size());
  for (const RankWaits& w : waits) wait_per_rank.push_back(w.wait_ns);
  const double median_wait = median(wait_per_rank);
  const double max_wait =
      wait_per_rank.empty() ? 0 : *std::max_element(wait_per_rank.begin(), wait_per_rank.end());

  for (const Straggler& s : job.stragglers) {
    JobFinding jf;
    Finding& f = jf.finding;
    f.id = "straggler";
    f.rank = s.rank;
    f.title =
        fmt::format("Rank {} is a straggler{}: {} wait {:.2f} ms per step for it", s.rank,
                    s.phase == "unknown" ? "" : " (" + s.phase + ")",
                    s.waiting_ranks.size() == 1 ? "1 rank waits"
                                                : fmt::format("{} ranks", s.waiting_ranks.size()),
                    ms(s.late_ns_per_step));
    if (s.waiting_ranks.size() == 1) {
      f.title = fmt::format("Rank {} is a straggler{}: rank {} waits {:.2f} ms per step for it",
                            s.rank, s.phase == "unknown" ? "" : " (" + s.phase + ")",
                            s.waiting_ranks.front(), ms(s.late_ns_per_step));
    }
    f.bottleneck = s.phase == "data_loading" ? Bottleneck::kInputPipeline
                   : on_device               ? Bottleneck::kGpuCompute
                                             : Bottleneck::kHostOverhead;
    f.part = s.phase == "forward"        ? StepPart::kForward
             : s.phase == "backward"     ? StepPart::kBackward
             : s.phase == "optimizer"    ? StepPart::kOptimizer
             : s.phase == "data_loading" ? StepPart::kDataLoading
                                         : StepPart::kWholeStep;
    f.evidence.push_back({"arrives late in steps", 100 * s.share_late, "%", {}});
    f.evidence.push_back(
        {"late per step, after the other ranks", ms(s.late_ns_per_step), "ms/step", {}});
    f.evidence.push_back({"median wait of the other ranks", ms(median_wait), "ms/step", {}});
    if (s.phase != "unknown") {
      f.evidence.push_back(
          {s.phase + " longer than on the median rank", ms(s.phase_excess_ns), "ms/step", {}});
    }
    // s.evidence: lateness, then the phase when known, then the ops: the ops only here.
    for (std::size_t k = s.phase == "unknown" ? 1 : 2; k < s.evidence.size(); ++k) {
      f.evidence.push_back({s.evidence[k], 0, "", {}});
    }
    f.fix = straggler_fix(s, on_device);
    f.gain = gain_of(s.late_ns_per_step, s.late_ns_per_step, step_ns,
                     "the straggler's lateness per step: what every other rank waits when it "
                     "arrives as early as the median rank");
    f.severity = severity_for(f.gain.likely_share);
    jf.ranks.push_back(s.rank);
    for (std::int64_t r : s.waiting_ranks) jf.ranks.push_back(r);
    job.findings.push_back(std::move(jf));
  }

  if (job.stragglers.empty() && ranks.size() > 1 && median_wait >= kMinWaitShare * step_ns &&
      median_wait > 0) {
    JobFinding jf;
    Finding& f = jf.finding;
    f.id = "rank-imbalance";
    f.title = fmt::format("Ranks wait {:.2f} ms per step for each other, with no single straggler",
                          ms(median_wait));
    f.bottleneck = on_device ? Bottleneck::kGpuCompute : Bottleneck::kHostOverhead;
    f.evidence.push_back({"median wait per rank", ms(median_wait), "ms/step", {}});
    f.evidence.push_back({"largest wait of a rank", ms(max_wait), "ms/step", {}});
    f.fix =
        "The last rank changes from collective to collective: the work per step varies "
        "(uneven batches or sequence lengths: pack or bucket them) or hosts are disturbed "
        "(other processes, CPU frequency); balance the inputs and isolate the hosts.";
    f.gain = gain_of(median_wait, max_wait, step_ns, "the median rank's wait per step");
    f.severity = severity_for(f.gain.likely_share);
    for (const RankWaits& w : waits) {
      if (w.wait_ns >= 0.5 * median_wait) jf.ranks.push_back(w.rank);
    }
    job.findings.push_back(std::move(jf));
  }

  std::vector<double> exposed;
  exposed.reserve(waits.size());
  for (const RankWaits& w : waits) exposed.push_back(w.exposed_ns);
  const double median_exposed = median(exposed);
  if (step_ns > 0 && median_exposed >= kMinExposedShare * step_ns) {
    JobFinding jf;
    Finding& f = jf.finding;
    f.id = "exposed-communication";
    f.title = fmt::format(
        "Communication is exposed: {:.2f} ms per step of transfer that no computation hides",
        ms(median_exposed));
    f.bottleneck = Bottleneck::kCommunication;
    f.part = StepPart::kCommunication;
    f.evidence.push_back({"exposed transfer per step (waiting removed), median rank",
                          ms(median_exposed),
                          "ms/step",
                          {}});
    f.fix =
        "Overlap communication with computation: with DDP, set bucket_cap_mb so the first "
        "buckets are ready early in backward (and gradient_as_bucket_view=True); with FSDP, "
        "enable backward_prefetch and forward_prefetch; avoid synchronising calls between "
        "backward and the optimizer step.";
    f.gain = gain_of(median_exposed, median_exposed, step_ns,
                     "the median rank's exposed transfer time per step, waiting excluded");
    f.severity = severity_for(f.gain.likely_share);
    for (const RankWaits& w : waits) jf.ranks.push_back(w.rank);
    job.findings.push_back(std::move(jf));
  }

  std::int64_t small_count = 0;
  std::int64_t small_ns = 0;
  for (const CollectiveRow& row : job.collectives) {
    if (!row.latency_bound) continue;
    small_count += row.count;
    small_ns += row.transfer_ns;
  }
  const double steps = ranks.empty() || ranks.front().steps.empty()
                           ? 1.0
                           : static_cast<double>(ranks.front().steps.size());
  const double small_per_step = static_cast<double>(small_ns) / steps;
  if (step_ns > 0 && small_per_step >= kMinSmallShare * step_ns) {
    JobFinding jf;
    Finding& f = jf.finding;
    f.id = "small-collectives";
    f.title = fmt::format(
        "{:.0f} small collectives per step (under 64 KiB) cost {:.2f} ms in "
        "latency",
        static_cast<double>(small_count) / steps, ms(small_per_step));
    f.bottleneck = Bottleneck::kCommunication;
    f.part = StepPart::kCommunication;
    f.evidence.push_back({"collectives under 64 KiB per step",
                          static_cast<double>(small_count) / steps,
                          "calls/step",
                          {}});
    f.evidence.push_back({"their transfer time per step", ms(small_per_step), "ms/step", {}});
    f.fix =
        "Coalesce small collectives: fewer, larger DDP buckets (bucket_cap_mb), flatten "
        "parameters or wrap larger FSDP units, and batch small all_reduce calls "
        "(torch.distributed all_reduce_coalesced or one flattened tensor).";
    f.gain = gain_of(small_per_step / 2, small_per_step, step_ns,
                     "half their transfer time per step: fewer, larger messages pay the latency "
                     "once");
    f.severity = severity_for(f.gain.likely_share);
    for (const RankWaits& w : waits) jf.ranks.push_back(w.rank);
    job.findings.push_back(std::move(jf));
  }

  std::stable_sort(job.findings.begin(), job.findings.end(),
                   [](const JobFinding& a, const JobFinding& b) {
                     return a.finding.gain.likely_ns > b.finding.gain.likely_ns;
                   });

  // Superseded rank findings: waiting explains the rank's own exposed communication.
  std::int64_t superseded = 0;
  for (std::size_t i = 0; i < ranks.size() && i < job.ranks.size(); ++i) {
    RankRow& row = job.ranks[i];
    const RankWaits& w = waits[i];
    const bool waiting_explains = w.wait_ns > 0 && w.wait_ns >= w.exposed_ns;
    std::size_t pick = 0;
    const auto& findings = ranks[i].findings;
    while (pick < findings.size() && is_rank_communication_finding(findings[pick].id) &&
           waiting_explains) {
      ++pick;
      ++superseded;
    }
    row.top_finding = pick < findings.size() ? findings[pick].id : "";
    row.top_finding_title = pick < findings.size() ? findings[pick].title : "";
    if (row.top_finding.empty() && waiting_explains && !job.stragglers.empty() &&
        job.stragglers.front().rank != row.rank) {
      row.top_finding = "straggler";
      row.top_finding_title = fmt::format("waits for rank {}", job.stragglers.front().rank);
    }
  }
  if (superseded > 0) {
    job.notes.push_back(fmt::format(
        "{} rank{} reported exposed communication that is waiting for other ranks; the job "
        "findings replace it",
        superseded, superseded == 1 ? "" : "s"));
  }

  // The verdict: one sentence, the answer.
  if (!job.stragglers.empty()) {
    const Straggler& s = job.stragglers.front();
    job.verdict = fmt::format(
        "Straggler: rank {} arrives late in {:.0f}% of the steps, {:.2f} ms per step "
        "after the median rank{}; the other ranks wait for it ({:.0f}% of the step).",
        s.rank, 100 * s.share_late, ms(s.late_ns_per_step),
        s.phase == "unknown" ? "" : ", losing the time in " + s.phase,
        step_ns > 0 ? 100 * s.late_ns_per_step / step_ns : 0.0);
  } else if (!job.findings.empty()) {
    job.verdict = job.findings.front().finding.title + ".";
  } else if (ranks.size() < 2) {
    job.verdict = "One rank only: nothing to compare across ranks.";
  } else {
    std::map<std::string, int> bottlenecks;
    for (const RankSummary& r : ranks) ++bottlenecks[r.bottleneck];
    const auto most =
        std::max_element(bottlenecks.begin(), bottlenecks.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    job.verdict = fmt::format(
        "Balanced: no rank makes the others wait (median wait {:.2f} ms per step); the ranks' "
        "own diagnosis: {} on {} of {} ranks.",
        ms(median_wait), most->first, most->second, ranks.size());
  }
}

}  // namespace stepscope::job::detail
