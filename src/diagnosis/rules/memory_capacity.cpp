// memory-capacity: a GPU's memory peak (reserved, else allocated) comes within kHeadroomMargin of
// the device's total memory (docs/metrics/11-memory-curve-from-memory-events.md §11 for the
// curve; deviceProperties for the total). One allocation more (a longer sequence, a larger batch,
// another process, fragmentation) then ends the run in out-of-memory. The finding splits what is
// live at the allocation peak by lifetime, so the fix addresses the larger part.
#include <fmt/format.h>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

// The margin: under 10 % of the device free at the peak. Besides the allocator's peak, the CUDA
// context (a few hundred MiB), NCCL buffers and cuBLAS workspaces take device memory the trace
// does not show, and the peak of a profiled window is rarely the worst step of an epoch.
constexpr double kHeadroomMargin = 0.10;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / kGiB; }

StepPart part_of(std::optional<Phase> phase) {
  if (!phase) return StepPart::kWholeStep;
  switch (*phase) {
    case Phase::kForward:
      return StepPart::kForward;
    case Phase::kBackward:
      return StepPart::kBackward;
    case Phase::kOptimizer:
      return StepPart::kOptimizer;
    case Phase::kDataLoading:
      return StepPart::kDataLoading;
    case Phase::kOther:
      break;
  }
  return StepPart::kWholeStep;
}

std::vector<EventRefs> refs_of(const RankAnalyses& rank, const std::vector<HeldBy>& held) {
  std::vector<EventRefs> refs;
  for (const HeldBy& h : held) {
    EventRefs ref;
    ref.name = h.op;
    ref.count = h.count;
    ref.first_start_ns = h.first_time_ns;
    ref.last_end_ns = h.last_time_ns;
    if (const Step* step = step_at(rank.steps, h.first_time_ns)) ref.steps.push_back(step->number);
    refs.push_back(std::move(ref));
  }
  return refs;
}

// The techniques in the order that frees the larger part first.
std::string fix_for(const DeviceHeadroom& d) {
  const std::string activations =
      "Activations (allocated and freed within the step) take most of the peak: run the forward "
      "pass under torch.autocast(device_type=\"cuda\", dtype=torch.bfloat16) (activations about "
      "halve), checkpoint the repeated blocks with torch.utils.checkpoint.checkpoint(block, x, "
      "use_reentrant=False) (their activations are recomputed in backward), or halve the batch "
      "and keep the effective batch with gradient accumulation.";
  const std::string long_lived =
      "Memory that lives across steps (parameters, gradients, optimizer state) takes most of the "
      "peak: shard it over the GPUs with FSDP (torch.distributed.fsdp.fully_shard) or ZeRO "
      "(DeepSpeed stage 1-3, torch.distributed.optim.ZeroRedundancyOptimizer), keep smaller "
      "optimizer state (8-bit Adam from bitsandbytes, Adafactor, SGD with momentum), or keep bf16 "
      "weights.";
  const std::string common =
      " Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True so that fragmentation does not turn "
      "the little headroom left into an out-of-memory error.";
  return (d.step_scoped_bytes >= d.long_lived_bytes ? activations : long_lived) + common;
}

Finding capacity_finding(const RankAnalyses& rank, const DeviceHeadroom& d) {
  Finding finding;
  finding.id = "memory-capacity";
  finding.bottleneck = Bottleneck::kMemoryCapacity;
  finding.part = part_of(d.peak_phase);
  finding.rank = rank.trace->rank;
  finding.title = fmt::format("{} peaks at {:.2f} GiB of {:.2f} GiB: {:.2f} GiB ({:.1f} %) left",
                              d.label, gib(d.peak_bytes), gib(d.total_bytes), gib(d.headroom_bytes),
                              d.headroom_share * 100);
  finding.evidence.push_back(
      Evidence{"device memory (deviceProperties totalGlobalMem)", gib(d.total_bytes), "GiB", {}});
  if (d.peak_reserved >= 0) {
    finding.evidence.push_back(
        Evidence{"peak reserved by the caching allocator", gib(d.peak_reserved), "GiB", {}});
  }
  EventRefList at_peak;
  if (!d.peak_op.empty()) {
    const Step* step = step_at(rank.steps, d.peak_time_ns);
    at_peak.add(d.peak_op, d.peak_time_ns, d.peak_time_ns, step);
  }
  finding.evidence.push_back(
      Evidence{fmt::format("peak allocated ({} at the peak)",
                           d.peak_phase ? to_string(*d.peak_phase) : "no phase marker"),
               gib(d.peak_allocated), "GiB", at_peak.all()});
  finding.evidence.push_back(Evidence{"headroom (total - peak)", gib(d.headroom_bytes), "GiB", {}});
  finding.evidence.push_back(
      Evidence{"headroom share of the device", d.headroom_share * 100, "%", {}});
  finding.evidence.push_back(
      Evidence{"live at the peak, long-lived (alive across a step boundary or allocated before "
               "the trace: parameters, gradients, optimizer state)",
               gib(d.long_lived_bytes), "GiB", refs_of(rank, d.long_lived_by_op)});
  finding.evidence.push_back(
      Evidence{"live at the peak, step-scoped (allocated and freed within the step: activations, "
               "temporaries)",
               gib(d.step_scoped_bytes), "GiB", refs_of(rank, d.step_scoped_by_op)});
  finding.evidence.push_back(Evidence{"of the step-scoped, allocated in the forward pass",
                                      gib(d.step_scoped_forward_bytes),
                                      "GiB",
                                      {}});
  finding.fix = fix_for(d);
  finding.gain = make_gain(
      0, 0, mean_step_ns(rank),
      "no step time to gain: headroom is what lets a larger batch or longer sequence fit and what "
      "keeps the run from out-of-memory; a larger batch speeds up an epoch only where the GPU is "
      "not already saturated");
  finding.severity = d.headroom_share < kHeadroomMargin / 2 ? Severity::kHigh : Severity::kMedium;
  return finding;
}

}  // namespace

std::vector<Finding> check_memory_capacity(const RankAnalyses& rank) {
  std::vector<Finding> findings;
  for (const DeviceHeadroom& device : rank.memory_headroom.devices) {
    if (device.headroom_share < kHeadroomMargin) {
      findings.push_back(capacity_finding(rank, device));
    }
  }
  return findings;
}

}  // namespace stepscope::rules
