#include "stepscope/diagnosis/diagnose.h"

#include <fmt/format.h>

#include <algorithm>

#include "diagnosis/code_attribution.h"
#include "diagnosis/gain.h"
#include "diagnosis/rule.h"

namespace stepscope {

namespace {

// A finding names the bottleneck only if it promises this much of the step; otherwise the run
// is called healthy and the findings stay as advice.
constexpr double kVerdictShare = 0.05;

std::vector<std::string> top_operations(const Finding& finding, std::size_t limit) {
  std::vector<const EventRefs*> refs;
  for (const Evidence& evidence : finding.evidence) {
    for (const EventRefs& ref : evidence.events) refs.push_back(&ref);
  }
  std::stable_sort(refs.begin(), refs.end(),
                   [](const EventRefs* a, const EventRefs* b) { return a->count > b->count; });
  std::vector<std::string> names;
  for (const EventRefs* ref : refs) {
    if (names.size() >= limit) break;
    if (std::find(names.begin(), names.end(), ref->name) == names.end()) names.push_back(ref->name);
  }
  return names;
}

// Memory growth with high severity: the run will stop with out-of-memory.
bool ends_the_run(const Finding& finding) {
  return finding.bottleneck == Bottleneck::kMemoryCapacity && finding.severity == Severity::kHigh &&
         finding.id == "memory-growth";
}

// Under half the memory-capacity margin the next longer input may not fit: that outranks any
// saving of time, after a run that will certainly end in out-of-memory.
bool near_out_of_memory(const Finding& finding) {
  return finding.id == "memory-capacity" && finding.severity == Severity::kHigh;
}

// 0: ends the run, 1: near out-of-memory, 2: ranked by the time it saves.
int urgency(const Finding& finding) {
  if (ends_the_run(finding)) return 0;
  return near_out_of_memory(finding) ? 1 : 2;
}

std::string describe_limit(const RankAnalyses& rank) {
  const StepBreakdownResult& breakdown = rank.step_breakdown;
  if (!breakdown.applicable || breakdown.mean.total_ns <= 0) {
    return "no kept steps: step time cannot be broken down";
  }
  StepRole largest = StepRole::kKernel;
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    if (breakdown.mean.ns[r] > breakdown.mean[largest]) largest = static_cast<StepRole>(r);
  }
  const double share =
      static_cast<double>(breakdown.mean[largest]) / static_cast<double>(breakdown.mean.total_ns);
  return fmt::format(
      "{} takes {:.1f} % of the step; a trace of the dominant kernels (op and "
      "kernel tables) shows what to speed up next",
      to_string(largest), share * 100);
}

}  // namespace

Diagnosis diagnose(const RankAnalyses& rank) {
  Diagnosis diagnosis;
  for (const Rule& rule : all_rules()) {
    std::vector<Finding> found = rule.check(rank);
    diagnosis.findings.insert(diagnosis.findings.end(), std::make_move_iterator(found.begin()),
                              std::make_move_iterator(found.end()));
  }
  attribute_code(rank, diagnosis.findings);
  diagnosis.memory_headroom = rank.memory_headroom.devices;
  // A run heading for out-of-memory fails whatever its speed: that comes first, then a peak
  // within half the capacity margin, then the findings by the time they promise.
  std::stable_sort(diagnosis.findings.begin(), diagnosis.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     if (urgency(a) != urgency(b)) return urgency(a) < urgency(b);
                     return a.gain.likely_ns > b.gain.likely_ns;
                   });
  if (!diagnosis.findings.empty() && ends_the_run(diagnosis.findings.front())) {
    const Finding& top = diagnosis.findings.front();
    diagnosis.bottleneck = top.bottleneck;
    diagnosis.part = top.part;
    diagnosis.dominant_operations = top_operations(top, 3);
    diagnosis.summary =
        fmt::format("{} bound: {} (the run ends in out-of-memory at this rate: fix this first)",
                    to_string(top.bottleneck), top.title);
  } else if (!diagnosis.findings.empty() && near_out_of_memory(diagnosis.findings.front())) {
    const Finding& top = diagnosis.findings.front();
    diagnosis.bottleneck = top.bottleneck;
    diagnosis.part = top.part;
    diagnosis.dominant_operations = top_operations(top, 3);
    diagnosis.summary = fmt::format(
        "{} bound: {} (close to out-of-memory: a longer input or a larger batch may not fit)",
        to_string(top.bottleneck), top.title);
  } else if (!diagnosis.findings.empty() &&
             diagnosis.findings.front().gain.likely_share >= kVerdictShare) {
    const Finding& top = diagnosis.findings.front();
    diagnosis.bottleneck = top.bottleneck;
    diagnosis.part = top.part;
    diagnosis.dominant_operations = top_operations(top, 3);
    diagnosis.summary =
        fmt::format("{} bound: {} (about {:.0f} % of the step to gain)", to_string(top.bottleneck),
                    top.title, top.gain.likely_share * 100);
  } else if (rank.steps.kept().empty()) {
    diagnosis.bottleneck = Bottleneck::kUndetermined;
    diagnosis.summary =
        "undetermined: the trace has no kept ProfilerStep#N, so step time and its parts cannot be "
        "measured; record with torch.profiler.schedule and call prof.step() every iteration";
  } else {
    diagnosis.bottleneck = Bottleneck::kHealthy;
    diagnosis.limited_by = describe_limit(rank);
    diagnosis.summary =
        "healthy: no finding promises 5 % of the step or more; " + diagnosis.limited_by;
  }
  return diagnosis;
}

}  // namespace stepscope
