// Rule: thread oversubscription (CPU-only runs). Every process of the job on a host starts
// torch.get_num_threads() intra-op threads (by default one per core it can see), and each
// DataLoader worker one more; when several processes share the host they ask for more threads
// than there are cores, and OpenMP's parallel regions then wait at their barriers for threads
// the kernel has descheduled.
//
// A torch.profiler trace records no thread or core counts: the rule reads the `stepscope_host`
// metadata that stepscope.torch.profile writes (docs/stepscope-host.md) and is
// silent without it. Threshold: threads asked for > cores available, where threads asked for =
// local processes × intra-op threads + DataLoader workers × 1 (workers run with one intra-op
// thread by default). At exactly one thread per core nothing waits for a core; above it some
// thread always does, so any excess counts. Inter-op threads are left out: they idle unless the
// program uses torch.jit.fork or the like.
//
// The trace cannot measure contention itself, so the gain is a bound and a modest guess: the
// bound is the time inside the step's ops (where intra-op threads run; contention can cost no
// more than all of it), the likely saving a fifth of that.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "diagnosis/gain.h"
#include "diagnosis/host_timeline.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

// Oversubscribed OpenMP loops typically lose tens of percent of their time to context switches
// and barrier waits; without a measurement, claim the low end.
constexpr double kLikelyRemovedShare = 0.2;

struct ThreadDemand {
  std::int64_t cores = 0;
  std::int64_t processes = 1;
  std::int64_t intra_op = 0;
  std::int64_t workers = 0;
  [[nodiscard]] std::int64_t threads() const { return processes * intra_op + workers; }
};

// The counts the rule needs, or nothing when the trace lacks the cores or the threads.
// Missing local processes count as 1 and missing workers as 0: a lower bound on the demand.
std::optional<ThreadDemand> thread_demand(const HostConditions& host) {
  ThreadDemand demand;
  demand.cores = host.cores_available >= 1 ? host.cores_available : host.cpu_count;
  demand.intra_op = host.intra_op_threads;
  if (demand.cores < 1 || demand.intra_op < 1) return std::nullopt;
  if (host.local_processes >= 1) demand.processes = host.local_processes;
  if (host.dataloader_workers >= 0) demand.workers = host.dataloader_workers;
  return demand;
}

// Time inside the top-level ops of the kept steps on each step's own thread (ns, all steps).
std::int64_t op_time_ns(const RankAnalyses& rank) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t total = 0;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr || !on_step_thread(trace, *step, i) || !is_top_level_work_op(trace, i)) {
      continue;
    }
    total += std::min(e.end_ns(i), step->end_ns) - e.start_ns[i];
  }
  return total;
}

void add_evidence(Finding& finding, const HostConditions& host, const ThreadDemand& demand,
                  double ops_ms) {
  const bool processes_known = host.local_processes_source != "unknown";
  finding.evidence.push_back(
      Evidence{"threads asked for (processes × intra-op threads + "
               "DataLoader workers)",
               static_cast<double>(demand.threads()),
               "threads",
               {}});
  finding.evidence.push_back(
      Evidence{"cores available to the process", static_cast<double>(demand.cores), "cores", {}});
  finding.evidence.push_back(Evidence{processes_known
                                          ? "processes of this job on this host"
                                          : "processes of this job on this host (at least: "
                                            "torch.distributed without LOCAL_WORLD_SIZE)",
                                      static_cast<double>(demand.processes),
                                      "processes",
                                      {}});
  finding.evidence.push_back(Evidence{
      "intra-op threads per process", static_cast<double>(demand.intra_op), "threads", {}});
  finding.evidence.push_back(Evidence{
      "DataLoader worker processes", static_cast<double>(demand.workers), "processes", {}});
  finding.evidence.push_back(Evidence{"time inside ops per step", ops_ms, "ms/step", {}});
}

std::string fix_for(const ThreadDemand& demand) {
  const std::int64_t share = std::max<std::int64_t>(1, demand.cores / demand.processes);
  std::string fix = fmt::format(
      "Give each process its share of the cores: torch.set_num_threads({}) at start-up "
      "(cores // local processes = {} // {}), or OMP_NUM_THREADS={} in the launch environment "
      "(torchrun sets 1 when it starts several processes on a host and the variable is unset).",
      share, demand.cores, demand.processes, share);
  if (demand.workers > 0) {
    fix +=
        " DataLoader workers take cores too: use fewer (num_workers) or leave a core per worker "
        "out of the share above.";
  }
  if (demand.processes > demand.cores) {
    fix += " Even at one thread each there are more processes than cores: start fewer per host.";
  }
  return fix;
}

}  // namespace

std::vector<Finding> check_thread_oversubscription(const RankAnalyses& rank) {
  const Trace& trace = *rank.trace;
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (!trace.host || step_ns <= 0 || kept.empty() || !is_cpu_only(trace)) return {};
  const std::optional<ThreadDemand> demand = thread_demand(*trace.host);
  if (!demand || demand->threads() <= demand->cores) return {};

  const double ops_per_step =
      static_cast<double>(op_time_ns(rank)) / static_cast<double>(kept.size());
  Finding finding;
  finding.id = "thread-oversubscription";
  finding.bottleneck = Bottleneck::kHostOverhead;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "Thread oversubscription: {} threads asked of {} cores ({} processes × {} intra-op "
      "threads + {} DataLoader workers)",
      demand->threads(), demand->cores, demand->processes, demand->intra_op, demand->workers);
  add_evidence(finding, *trace.host, *demand, ops_per_step / 1e6);
  finding.fix = fix_for(*demand);
  finding.gain = make_gain(
      static_cast<std::int64_t>(ops_per_step),
      static_cast<std::int64_t>(ops_per_step * kLikelyRemovedShare), step_ns,
      "bound: all time inside the step's ops (where intra-op threads run; the trace cannot "
      "measure the contention); likely: a fifth of it, the low end of what oversubscribed "
      "OpenMP loops lose to context switches and barrier waits");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
