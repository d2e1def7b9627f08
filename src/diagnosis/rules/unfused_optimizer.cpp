// Rule: unfused optimizer. `optimizer.step()` launches small kernels parameter by parameter
// (`foreach=False`), so its host time grows with the number of parameters.
//
// Evidence: kernels launched inside `Optimizer.step#...` per step, how many of them are short,
// and the optimizer's host time per step. Threshold: 30 kernels per step with no multi-tensor
// (`multi_tensor_apply`) or fused kernel among them, and the optimizer at least 3 % of the step.
// Advice that knows what was done: kernels launched from `aten::_foreach_*` or `aten::_fused_*`
// ops mean foreach / fused is already on (per-tensor kernels then come from its slow path, e.g.
// mixed dtypes): no finding.
#include <fmt/format.h>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kMinKernelsPerStep = 30;
constexpr double kThresholdShare = 0.03;
// foreach / fused implementations launch a handful of kernels for all parameters: most of the
// host time of a per-parameter loop goes.
constexpr double kLikelyRemovedShare = 0.7;

bool in_optimizer_step(const Trace& trace, EventIndex call) {
  for (EventIndex at = trace.events.parent[call]; at != kNoEvent; at = trace.events.parent[at]) {
    if (trace.name_of(at).rfind("Optimizer.step#", 0) == 0) return true;
  }
  return false;
}

bool from_foreach_or_fused_op(const Trace& trace, EventIndex call) {
  for (EventIndex at = trace.events.parent[call]; at != kNoEvent; at = trace.events.parent[at]) {
    const std::string_view name = trace.name_of(at);
    if (name.starts_with("aten::_foreach_") || name.starts_with("aten::_fused_")) return true;
  }
  return false;
}

bool is_multi_tensor(std::string_view name) {
  return name.find("multi_tensor_apply") != std::string_view::npos ||
         name.find("fused") != std::string_view::npos ||
         name.find("Fused") != std::string_view::npos;
}

}  // namespace

std::vector<Finding> check_unfused_optimizer(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty() || !rank.phases.applicable) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t kernels = 0;
  EventRefList refs;
  for (const EventIndex i : e.device_activities) {
    if (e.launcher[i] == kNoEvent) continue;
    const Step* step = step_at(rank.steps, e.start_ns[e.launcher[i]]);
    if (step == nullptr || !in_optimizer_step(trace, e.launcher[i])) continue;
    if (is_multi_tensor(trace.name_of(i)) || from_foreach_or_fused_op(trace, e.launcher[i])) {
      return {};  // already foreach / fused
    }
    ++kernels;
    refs.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
  }
  const auto steps = static_cast<double>(kept.size());
  const double per_step = static_cast<double>(kernels) / steps;
  const std::int64_t optimizer_ns = rank.phases.mean.host(Phase::kOptimizer);
  const double share = static_cast<double>(optimizer_ns) / step_ns;
  if (per_step < kMinKernelsPerStep || share < kThresholdShare) return {};
  Finding finding;
  finding.id = "unfused-optimizer";
  finding.bottleneck = Bottleneck::kHostOverhead;
  finding.part = StepPart::kOptimizer;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "optimizer.step() launches {:.0f} kernels per step one parameter at a time", per_step);
  finding.evidence.push_back(Evidence{"kernels launched inside Optimizer.step per step", per_step,
                                      "kernels/step", refs.all()});
  finding.evidence.push_back(Evidence{
      "optimizer host time per step", static_cast<double>(optimizer_ns) / 1e6, "ms/step", {}});
  finding.fix =
      "Use the multi-tensor or fused implementation: torch.optim.AdamW(params, fused=True) (or "
      "foreach=True, the default when every parameter is on the GPU; check nothing forces "
      "foreach=False), and zero gradients with optimizer.zero_grad(set_to_none=True).";
  finding.gain = make_gain(
      optimizer_ns,
      static_cast<std::int64_t>(static_cast<double>(optimizer_ns) * kLikelyRemovedShare), step_ns,
      "bound: the optimizer's host time per step; likely: 70 % of it, since fused kernels update "
      "all parameters in a few launches");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
