// Rule: model.eval() forgotten. Dropout draws random masks in a forward-only trace: the model is
// still in training mode, so its outputs are randomly perturbed (and batch norm would update its
// running statistics) besides the time the masks cost.
//
// Evidence: dropout ops and kernels per kept step. Threshold: one dropout mask per kept step in
// a trace with no backward pass and no optimizer; in eval() mode dropout draws none.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "diagnosis/gain.h"
#include "diagnosis/inference.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kMinMasksPerStep = 1;

// The ops and kernels that draw a dropout mask (not `aten::dropout` itself: eval() calls it too,
// and it returns its input).
bool draws_dropout_mask(std::string_view name) {
  return name == "aten::bernoulli_" || name == "aten::native_dropout" ||
         name == "aten::fused_dropout" || name.find("fused_dropout") != std::string_view::npos ||
         name.find("bernoulli_tensor_cpu") != std::string_view::npos;
}

}  // namespace

std::vector<Finding> check_dropout_in_inference(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty() || !is_forward_only(rank)) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::int64_t masks = 0;
  std::int64_t host_ns = 0;
  std::int64_t device_ns = 0;
  EventRefList refs;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const bool device = is_device_activity(e.event_class[i]);
    if ((!device && e.event_class[i] != EventClass::kOp) || !draws_dropout_mask(trace.name_of(i))) {
      continue;
    }
    const Step* step =
        step_at(rank.steps, e.start_ns[device && e.launcher[i] != kNoEvent ? e.launcher[i] : i]);
    if (step == nullptr) continue;
    refs.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    if (device) {
      device_ns += e.dur_ns[i];
    } else {
      ++masks;
      host_ns += e.dur_ns[i];
    }
  }
  const auto steps = static_cast<double>(kept.size());
  const double per_step = static_cast<double>(masks) / steps;
  if (per_step < kMinMasksPerStep) return {};
  const auto cost =
      static_cast<std::int64_t>(static_cast<double>(std::max(host_ns, device_ns)) / steps);
  Finding finding;
  finding.id = "dropout-in-inference";
  finding.bottleneck = Bottleneck::kGpuCompute;
  finding.part = StepPart::kForward;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "model.eval() is missing: dropout draws random masks in inference ({:.0f} per step)",
      per_step);
  finding.evidence.push_back(
      Evidence{"dropout masks drawn per kept step (no backward pass in "
               "the trace)",
               per_step, "masks/step", refs.all()});
  finding.evidence.push_back(
      Evidence{"time drawing and applying them", static_cast<double>(cost) / 1e6, "ms/step", {}});
  finding.fix =
      "Call model.eval() before inference (and model.train() before training again): dropout "
      "then passes its input through, batch norm uses its running statistics, and the outputs "
      "stop changing from run to run.";
  finding.gain = make_gain(cost, cost, step_ns,
                           "the time of the dropout mask ops (host) or kernels (device), "
                           "whichever is larger: eval() removes them");
  // Wrong outputs matter beyond their time: at least a warning whatever the gain.
  finding.severity = std::max(severity_for(finding.gain.likely_share), Severity::kMedium);
  return {finding};
}

}  // namespace stepscope::rules
