// Rule: autograd left on during inference. A forward-only trace whose ops carry `Sequence
// number` was recorded with grad mode on: autograd built a graph nobody will walk, at a host cost
// per node, and kept the activations that graph needs.
//
// Evidence: autograd nodes per kept step (distinct sequence numbers), the ops that recorded
// them. Threshold: 10 nodes per kept step in a trace with no backward pass and no optimizer.
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "diagnosis/gain.h"
#include "diagnosis/inference.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kMinNodesPerStep = 10;
// Measured on a CPU (torch 2.13, one thread, 8 Linear+ReLU blocks): grad mode costs about 2.6 µs
// of host time per autograd node over torch.inference_mode(); twice that bounds it.
constexpr double kLikelyNsPerNode = 2'500;
constexpr double kBoundNsPerNode = 5'000;

}  // namespace

std::vector<Finding> check_autograd_in_inference(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty() || !is_forward_only(rank)) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::unordered_set<std::int64_t> nodes;
  EventRefList refs;
  std::int64_t op_time_ns = 0;  // outermost recording ops: the host time the cost hides in
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (e.event_class[i] != EventClass::kOp) continue;
    const EventArgs* args = trace.args_of(i);
    if (args == nullptr || args->sequence_number < 0) continue;
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr) continue;
    nodes.insert(args->sequence_number);
    refs.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    const EventIndex parent = e.parent[i];
    const EventArgs* parent_args = parent == kNoEvent ? nullptr : trace.args_of(parent);
    if (parent_args == nullptr || parent_args->sequence_number < 0) op_time_ns += e.dur_ns[i];
  }
  const auto steps = static_cast<double>(kept.size());
  const double per_step = static_cast<double>(nodes.size()) / steps;
  if (per_step < kMinNodesPerStep) return {};
  const double op_ns_per_step = static_cast<double>(op_time_ns) / steps;
  const auto bound =
      static_cast<std::int64_t>(std::min(op_ns_per_step, per_step * kBoundNsPerNode));
  const auto likely =
      static_cast<std::int64_t>(std::min(op_ns_per_step / 2, per_step * kLikelyNsPerNode));
  Finding finding;
  finding.id = "autograd-in-inference";
  finding.bottleneck = Bottleneck::kHostOverhead;
  finding.part = StepPart::kForward;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "inference runs with autograd on: {:.0f} graph nodes recorded per step, never used",
      per_step);
  finding.evidence.push_back(
      Evidence{"autograd nodes recorded per kept step (ops with a "
               "Sequence number, no backward pass in the trace)",
               per_step, "nodes/step", refs.most_frequent(5)});
  finding.evidence.push_back(
      Evidence{"host time of the ops that recorded them", op_ns_per_step / 1e6, "ms/step", {}});
  finding.fix =
      "Run inference under torch.inference_mode() (or torch.no_grad()) and model.eval(): no "
      "graph is built, and the activations it would keep are freed as soon as they are used.";
  finding.gain = make_gain(bound, likely, step_ns,
                           "host time: about 2.5 µs per autograd node (5 µs bound), measured "
                           "with grad mode on against torch.inference_mode(); it shortens the "
                           "step where the host is on the critical path, and frees the "
                           "activations the graph would keep");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
