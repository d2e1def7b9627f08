// Rule: host / launch-bound. The GPU idles because the host submits work too slowly: gaps in
// GPU activity whose next kernel was launched only after the gap began ("host wait",
// docs/metrics/05-hta-idle-time-breakdown-per-stream.md §5), many kernels shorter than their own
// launch, and launch calls a large part of host time.
//
// Idle that the idle attribution gives to an earlier cause is left out: gaps inside DataLoader
// spans (input-bound) and right after blocking syncs (host-device sync), so a wait is never
// counted twice (docs/metrics/16-idle-attribution.md).
// Threshold: host-wait idle >= 10 % of the mean step. Some host wait is normal at step
// boundaries and around the optimizer; a tenth of the step is worth removing.
//
// Advice that knows what was done: a run already under torch.compile (Triton kernels, compiled
// regions) is told to add CUDA graphs (mode="reduce-overhead") and remove graph breaks, not to
// compile; one already replaying CUDA graphs, to find what runs between them.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "analysis/name_test.h"
#include "diagnosis/compile_state.h"
#include "diagnosis/gain.h"
#include "diagnosis/inference.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.10;
// CUDA graphs or torch.compile remove most per-kernel launch cost, larger batches amortise it;
// some host work (Python, the optimizer) remains: assume 60 % of the wait goes.
constexpr double kLikelyRemovedShare = 0.6;
constexpr std::int64_t kShortKernelNs = 10'000;

struct HostWait {
  IntervalSet idle;
  EventRefList late_kernels;        // the activities the GPU waited for
  std::vector<EventRefs> host_ops;  // what the host was running meanwhile, by wait time
  std::int64_t attributed_ns = 0;
};

// The op the host was inside when the GPU ran dry: the innermost ancestor of the late launch
// that had already started at the gap's start; when none had (the host was between ops), the
// outermost op that holds the launch.
EventIndex op_during_gap(const Trace& trace, EventIndex call, std::int64_t gap_start) {
  const EventTable& e = trace.events;
  EventIndex outermost = kNoEvent;
  for (EventIndex at = e.parent[call]; at != kNoEvent; at = e.parent[at]) {
    if (trace.name_of(at).rfind("ProfilerStep#", 0) == 0) break;
    const EventClass c = e.event_class[at];
    if (c != EventClass::kOp && c != EventClass::kAnnotation) continue;
    if (e.start_ns[at] <= gap_start) return at;
    outermost = at;
  }
  return outermost;
}

// Gaps of the merged GPU timeline inside kept steps whose next activity was launched after the
// gap began, less the time other rules explain.
HostWait host_wait(const RankAnalyses& rank, const IntervalSet& excluded) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  HostWait wait;
  std::int64_t busy_until = INT64_MIN;
  std::vector<Interval> gaps;
  WeightedRefs ops;
  StepCursor steps(rank.steps);  // busy_until never decreases
  for (const EventIndex i : e.device_activities) {
    const std::int64_t start = e.start_ns[i];
    const EventIndex call = e.launcher[i];
    if (start > busy_until && busy_until != INT64_MIN && call != kNoEvent &&
        e.start_ns[call] > busy_until) {
      const Step* step = steps.at(busy_until);
      if (step != nullptr) {
        const Interval gap{busy_until, std::min(start, step->end_ns)};
        const std::int64_t unexplained = gap.length() - excluded.measure_within(gap);
        gaps.push_back(gap);
        wait.late_kernels.add(trace.name_of(i), start, e.end_ns(i), step);
        const EventIndex op = op_during_gap(trace, call, gap.start);
        if (op != kNoEvent && unexplained > 0) {
          ops.add(trace.name_of(op), e.start_ns[op], e.end_ns(op), step, unexplained);
          wait.attributed_ns += unexplained;
        }
      }
    }
    busy_until = std::max(busy_until, e.end_ns(i));
  }
  wait.idle = IntervalSet::from_sorted(gaps).subtract(excluded);
  wait.host_ops = ops.heaviest(5);
  return wait;
}

// Idle the attribution gives to causes before launch (data loading, host-device sync).
IntervalSet explained_elsewhere(const RankAnalyses& rank) {
  const IdleAttributionResult& idle = rank.idle_attribution;
  return idle.of(IdleOwner::kDataLoading).unite(idle.of(IdleOwner::kHostDeviceSync));
}

// Inference: no backward pass and no optimizer in the trace. Batch of one: the leading dimension
// of the first input of the matrix multiplies is 1.
bool inference_at_batch_one(const RankAnalyses& rank) {
  if (!is_forward_only(rank)) return false;
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t matmuls = 0;
  std::int64_t batch_one = 0;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const std::string_view name = trace.name_of(i);
    if (e.event_class[i] != EventClass::kOp || (name != "aten::linear" && name != "aten::mm" &&
                                                name != "aten::addmm" && name != "aten::matmul")) {
      continue;
    }
    const OpInputs* inputs = trace.op_inputs_of(i);
    if (inputs == nullptr || !inputs->shapes) continue;
    for (const Shape& shape : *inputs->shapes) {
      if (shape.size() < 2) continue;
      ++matmuls;
      batch_one += shape.front() == 1 ? 1 : 0;
      break;
    }
  }
  return matmuls > 0 && batch_one * 2 > matmuls;
}

bool names_a_launch(std::string_view name) { return name.find("Launch") != std::string_view::npos; }

// The fix for launch overhead in a run that torch.compile already compiles.
std::string compiled_fix(const CompileState& state) {
  if (state.cuda_graphs) {
    return "The step already runs under torch.compile with CUDA graphs (Triton kernels and "
           "graph launches in the trace): the GPU waits between graphs. Find the graph breaks "
           "that split the step (TORCH_LOGS=\"graph_breaks\" or torch._dynamo.explain(model)(x)) "
           "and remove them (.item(), print, data-dependent Python control flow), move CPU work "
           "out of the step, and give each graph more work with a larger batch size.";
  }
  return "The model already runs under torch.compile (Triton kernels or compiled regions in the "
         "trace), so fusing more is not the lever: replay the step as CUDA graphs with "
         "torch.compile(model, mode=\"reduce-overhead\"), and remove the graph breaks that split "
         "it (TORCH_LOGS=\"graph_breaks\" or torch._dynamo.explain(model)(x); .item(), print, "
         "data-dependent Python control flow); a larger batch size gives each launch more work.";
}

}  // namespace

std::vector<Finding> check_launch_bound(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  if (!rank.idle_attribution.applicable) return {};
  const Trace& trace = *rank.trace;
  const HostWait wait = host_wait(rank, explained_elsewhere(rank));
  const auto steps = static_cast<double>(kept.size());
  const auto wait_per_step =
      static_cast<std::int64_t>(static_cast<double>(wait.idle.measure()) / steps);
  const double share = static_cast<double>(wait_per_step) / step_ns;
  if (share < kThresholdShare) return {};

  const EventTable& e = trace.events;
  std::int64_t kernels = 0;
  std::int64_t short_kernels = 0;
  std::int64_t launch_ns = 0;
  StepCursor in_step(rank.steps);
  NameTest<names_a_launch> launch_name(trace);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    // The class first: most events are neither, and need no step.
    const bool device = is_device_activity(e.event_class[i]);
    if (!device && !is_launch_call(e.event_class[i])) continue;
    if (in_step.at(e.start_ns[i]) == nullptr) continue;
    if (device) {
      ++kernels;
      if (e.dur_ns[i] < kShortKernelNs) ++short_kernels;
    } else if (launch_name(i)) {
      launch_ns += e.dur_ns[i];
    }
  }
  const std::vector<EventRefs> late = wait.late_kernels.most_frequent(10);

  const double launch_per_step = static_cast<double>(launch_ns) / steps;
  // Launch calls themselves, or other host work (Python, CPU ops), keep the GPU waiting. Kernels
  // that nearly all finish faster than a launch also mean per-launch cost is what to cut.
  const double short_share =
      kernels > 0 ? static_cast<double>(short_kernels) / static_cast<double>(kernels) : 0.0;
  const bool launch_overhead =
      launch_per_step >= 0.3 * static_cast<double>(wait_per_step) || short_share >= 0.8;

  Finding finding;
  finding.id = "launch-bound";
  finding.bottleneck = Bottleneck::kHostOverhead;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title =
      launch_overhead
          ? fmt::format("The GPU waits for kernel launches {:.1f} % of each step", share * 100)
          : fmt::format("The GPU waits for host-side work {:.1f} % of each step", share * 100);
  finding.evidence.push_back(Evidence{"GPU idle with the next launch not yet issued, per step",
                                      static_cast<double>(wait_per_step) / 1e6, "ms/step", late});
  finding.evidence.push_back(
      Evidence{"GPU activities per step", static_cast<double>(kernels) / steps, "count/step", {}});
  finding.evidence.push_back(Evidence{
      "activities shorter than 10 µs",
      kernels > 0 ? 100.0 * static_cast<double>(short_kernels) / static_cast<double>(kernels) : 0,
      "%",
      {}});
  finding.evidence.push_back(
      Evidence{"host time in launch calls per step", launch_per_step / 1e6, "ms/step", {}});
  finding.evidence.push_back(Evidence{"GPU wait by the host op running at the time, per step",
                                      static_cast<double>(wait.attributed_ns) / steps / 1e6,
                                      "ms/step", wait.host_ops});
  finding.fix =
      launch_overhead
          ? "Give the GPU more work per launch: a larger batch size; torch.compile(model) to fuse "
            "small ops, or torch.compile(model, mode=\"reduce-overhead\") / torch.cuda.CUDAGraph "
            "to replay the step without per-kernel launches."
          : "Take host work off the step's critical path: the ops listed above run on the CPU "
            "while the GPU waits. Move CPU tensor work to the GPU, precompute it in the "
            "DataLoader workers, or batch Python-level loops; then torch.compile(model) to cut "
            "the remaining Python overhead.";
  const CompileState compiled = compile_state(trace);
  if (compiled.compiled) finding.fix = compiled_fix(compiled);
  if (inference_at_batch_one(rank)) {
    finding.id = "inference-launch-bound";
    finding.title = fmt::format(
        "Inference at batch size 1: the GPU waits for the host {:.1f} % of each step", share * 100);
    finding.fix =
        "Serve requests in batches (dynamic batching) so each launch does more work; run the "
        "model under model.eval() and torch.inference_mode() so no autograd bookkeeping runs; "
        "capture the forward pass with torch.compile(model, mode=\"reduce-overhead\") (CUDA "
        "graphs) to replay it without per-kernel launches.";
  }
  finding.gain = make_gain(
      wait_per_step,
      static_cast<std::int64_t>(static_cast<double>(wait_per_step) * kLikelyRemovedShare), step_ns,
      "bound: GPU idle waiting for launches (DataLoader and post-sync idle excluded); likely: "
      "60 % of it, what CUDA graphs or fusion typically remove");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
