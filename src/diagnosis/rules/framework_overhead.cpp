// Rule: framework overhead (CPU-only runs). The step is made of many tiny ops, and most of its
// time goes to the framework around them (Python, module calls, dispatch) rather than to the
// arithmetic: 64 Linear layers of width 64 at batch 4 spend microseconds per op computing and
// more than that getting there.
//
// Evidence, per kept step on the step's own thread: the top-level ops (ops with no op around
// them; collectives and data loading are left to their own rules), how many of them are shorter
// than 20 µs, and the host time between them (step time covered by no op, no collective and no
// data loading). Overhead = time between ops + time inside ops under 20 µs, since an op that
// short is mostly dispatch. Threshold: >= 50 top-level ops per step, at least half of them under
// 20 µs, and overhead >= 30 % of the mean step. Fewer ops, or longer ones, mean the step is doing
// work; below 30 % removing overhead is not the first thing to do.
//
// Advice that knows what was done: a model already under torch.compile (compiled regions in
// the trace) is told to find its graph breaks rather than to compile.
#include <fmt/format.h>

#include <algorithm>

#include "diagnosis/compile_state.h"
#include "diagnosis/gain.h"
#include "diagnosis/host_timeline.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr std::int64_t kTinyOpNs = 20'000;
constexpr double kMinOpsPerStep = 50;
constexpr double kMinTinyShare = 0.5;
constexpr double kThresholdShare = 0.30;
// torch.compile removes the Python and dispatch cost between fused ops and a larger batch
// amortises it, but the loop itself, the optimizer and the profiler's own cost per op remain:
// assume half of the overhead goes.
constexpr double kLikelyRemovedShare = 0.5;

struct HostOverhead {
  std::int64_t ops = 0;
  std::int64_t tiny_ops = 0;
  std::int64_t tiny_ns = 0;
  std::int64_t between_ns = 0;
  EventRefList tiny;
};

// The kept steps' top-level ops on each step's own thread, and the step time that none of them
// (nor a collective nor data loading) covers. One pass over the events.
HostOverhead measure(const RankAnalyses& rank, const IntervalSet& owned_elsewhere) {
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  HostOverhead out;
  std::vector<Interval> covered;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr || !on_step_thread(trace, *step, i) || !is_top_level_work_op(trace, i)) {
      continue;
    }
    ++out.ops;
    covered.push_back({e.start_ns[i], e.end_ns(i)});
    if (e.dur_ns[i] >= kTinyOpNs) continue;
    ++out.tiny_ops;
    out.tiny_ns += e.dur_ns[i];
    out.tiny.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
  }
  const IntervalSet busy = IntervalSet::from_unsorted(std::move(covered)).unite(owned_elsewhere);
  for (const Step* step : rank.steps.kept()) {
    const Interval window{step->start_ns, step->end_ns};
    out.between_ns += window.length() - busy.measure_within(window);
  }
  return out;
}

}  // namespace

std::vector<Finding> check_framework_overhead(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  const Trace& trace = *rank.trace;
  if (step_ns <= 0 || kept.empty() || !is_cpu_only(trace)) return {};
  const IntervalSet owned_elsewhere = collective_spans(trace).unite(data_loading_spans(trace));
  HostOverhead overhead = measure(rank, owned_elsewhere);
  const auto steps = static_cast<double>(kept.size());
  const double ops_per_step = static_cast<double>(overhead.ops) / steps;
  const double tiny_share =
      overhead.ops > 0 ? static_cast<double>(overhead.tiny_ops) / static_cast<double>(overhead.ops)
                       : 0.0;
  const double overhead_per_step =
      static_cast<double>(overhead.between_ns + overhead.tiny_ns) / steps;
  const double share = overhead_per_step / step_ns;
  if (ops_per_step < kMinOpsPerStep || tiny_share < kMinTinyShare || share < kThresholdShare) {
    return {};
  }

  Finding finding;
  finding.id = "framework-overhead";
  finding.bottleneck = Bottleneck::kHostOverhead;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "Framework overhead: {:.0f} tiny ops per step, {:.1f} % of the step outside real work",
      ops_per_step * tiny_share, share * 100);
  finding.evidence.push_back(Evidence{"top-level ops per step", ops_per_step, "count/step",
                                      overhead.tiny.most_frequent(10)});
  finding.evidence.push_back(Evidence{"ops shorter than 20 µs", tiny_share * 100, "%", {}});
  finding.evidence.push_back(Evidence{"host time between ops per step",
                                      static_cast<double>(overhead.between_ns) / steps / 1e6,
                                      "ms/step",
                                      {}});
  finding.evidence.push_back(Evidence{"time inside ops shorter than 20 µs per step",
                                      static_cast<double>(overhead.tiny_ns) / steps / 1e6,
                                      "ms/step",
                                      {}});
  finding.fix =
      "Give each op more work: a larger batch size, wider and fewer layers (one nn.Linear instead "
      "of a stack of tiny ones), tensor operations instead of Python loops over small tensors; "
      "then torch.compile(model) to fuse the remaining small ops and drop the Python and "
      "dispatch cost between them. For inference, run under torch.inference_mode().";
  if (compile_state(trace).compiled) {
    finding.fix =
        "The model already runs under torch.compile (compiled regions in the trace), yet tiny "
        "ops still run one by one outside them: find the graph breaks that leave them in eager "
        "mode (TORCH_LOGS=\"graph_breaks\" or torch._dynamo.explain(model)(x)) and remove them "
        "(.item(), print, data-dependent Python control flow); give each op more work with a "
        "larger batch size or fewer, wider layers. For inference, run under "
        "torch.inference_mode().";
  }
  const auto bound = static_cast<std::int64_t>(overhead_per_step);
  finding.gain = make_gain(
      bound, static_cast<std::int64_t>(overhead_per_step * kLikelyRemovedShare), step_ns,
      "bound: host time between ops plus time inside ops under 20 µs (dispatch, not work); "
      "likely: half of it, what torch.compile or a larger batch typically removes");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
