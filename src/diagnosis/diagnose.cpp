#include "stepscope/diagnosis/diagnose.h"

#include <fmt/format.h>

#include <algorithm>

#include "concurrency/parallel_for.h"
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

// The findings of a rank share one step: in ranked order, none may promise time the findings
// before it have already promised, so their bounds add up to at most the step. Idle-based
// findings are disjoint by construction (idle_attribution.h); this also covers findings on busy
// time that can overlap (the same kernels slow for two reasons).
void share_one_step(std::vector<Finding>& findings, double step_ns) {
  if (step_ns <= 0) return;
  const auto step = static_cast<std::int64_t>(step_ns);
  std::int64_t promised = 0;
  for (Finding& finding : findings) {
    const std::int64_t left = std::max<std::int64_t>(step - promised, 0);
    if (finding.gain.bound_ns > left) {
      finding.gain = make_gain(left, finding.gain.likely_ns, step_ns,
                               finding.gain.method +
                                   " (capped: the findings ranked above promise the rest of the "
                                   "step)");
      finding.severity = severity_for(finding.gain.likely_share);
    }
    promised += finding.gain.bound_ns;
  }
}

std::string describe_window(const StepsResult& steps) {
  switch (steps.window_source) {
    case StepsResult::WindowSource::kRepeatedRegion:
      return fmt::format(
          "no ProfilerStep#N in the trace: the {} repetitions of '{}' are the steps (record with "
          "torch.profiler.schedule and prof.step() for exact steps)",
          steps.steps.size(), steps.region);
    case StepsResult::WindowSource::kWholeTrace:
      return "no ProfilerStep#N and no repeated region in the trace: the whole trace, first "
             "host op or GPU activity to the last, is one step (record with "
             "torch.profiler.schedule and prof.step() for per-step figures)";
    default:
      return {};
  }
}

// A native trace without profiler steps is diagnosed over inferred iterations (steps.h); its
// figures keep the peers' window.
bool needs_inferred_iterations(const RankAnalyses& rank) {
  return rank.options.mode == Mode::kNative && !rank.options.infer_iterations &&
         rank.steps.steps.empty();
}

Diagnosis diagnose_steps(const RankAnalyses& rank) {
  Diagnosis diagnosis;
  diagnosis.window = describe_window(rank.steps);
  // Rules are independent: they may run side by side, and their findings join in rule order.
  const std::vector<Rule>& rules = all_rules();
  std::vector<std::vector<Finding>> found(rules.size());
  parallel_for(rules.size(), rank.options.threads,
               [&](std::size_t i) { found[i] = rules[i].check(rank); });
  for (std::vector<Finding>& some : found) {
    diagnosis.findings.insert(diagnosis.findings.end(), std::make_move_iterator(some.begin()),
                              std::make_move_iterator(some.end()));
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
  share_one_step(diagnosis.findings, mean_step_ns(rank));
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
        rank.steps.steps.empty()
            ? "undetermined: the trace holds no host ops and no GPU activity to measure"
            : "undetermined: no step is kept (outside the requested --steps, or cut short by the "
              "profiler), so step time cannot be measured";
  } else {
    diagnosis.bottleneck = Bottleneck::kHealthy;
    diagnosis.limited_by = describe_limit(rank);
    diagnosis.summary =
        "healthy: no finding promises 5 % of the step or more; " + diagnosis.limited_by;
  }
  return diagnosis;
}

}  // namespace

Diagnosis diagnose(const RankAnalyses& rank) {
  if (!needs_inferred_iterations(rank)) return diagnose_steps(rank);
  AnalysisOptions options = rank.options;
  options.infer_iterations = true;
  return diagnose_steps(analyze_rank(*rank.trace, options));
}

}  // namespace stepscope
