// Rule: host-device synchronisation inside the step. A blocking call (stream or device
// synchronize, a synchronous copy, `.item()`) makes the host wait until the GPU drains its
// queue; after it returns the GPU sits idle until the host has launched new work.
//
// Evidence: blocking calls per kept step, the GPU idle that follows them and that no earlier
// cause owns (idle_attribution.h: idle while the host waits for the DataLoader is input-bound's),
// and the ops that issued them (`aten::item`, `aten::_local_scalar_dense`, `aten::nonzero`,
// `.cpu()`...). Threshold: the GPU idle after syncs >= 3 % of the mean step. One sync per step for
// logging costs less than that on any step longer than a few milliseconds.
#include <fmt/format.h>

#include "analysis/name_test.h"
#include "diagnosis/gain.h"
#include "diagnosis/generation.h"
#include "diagnosis/rules/rules.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.03;

}  // namespace

std::vector<Finding> check_host_device_sync(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  const IdleAttributionResult& idle = rank.idle_attribution;
  if (!idle.applicable) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  EventRefList calls;
  EventRefList ops;
  std::int64_t sync_count = 0;
  NameTest<is_blocking_call> blocking(trace);  // every launch is a call: test each name once
  StepCursor in_step(rank.steps);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    if (!is_launch_call(e.event_class[i]) || !blocking(i)) continue;
    const Step* step = in_step.at(e.start_ns[i]);
    if (step == nullptr) continue;
    ++sync_count;
    calls.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    if (const EventIndex op = issuing_op(trace, i); op != kNoEvent) {
      ops.add(trace.name_of(op), e.start_ns[op], e.end_ns(op), step);
    }
  }
  const auto steps = static_cast<std::int64_t>(kept.size());
  const std::int64_t idle_per_step = idle.per_step_ns(IdleOwner::kHostDeviceSync);
  const double share = static_cast<double>(idle_per_step) / step_ns;
  if (sync_count == 0) return {};
  // The idle right after each sync understates many short syncs: each blocks briefly, but
  // together they keep the host from queueing work ahead, and the idle they cause shows up later
  // as late launches. The replay without them tells the two apart.
  WhatIfChange fix;
  fix.no_syncs = true;
  ExpectedGain gain =
      make_predicted_gain(rank, fix, idle_per_step, idle_per_step,
                          "the GPU idle between each blocking call's return and the next GPU work");
  if (std::max(share, gain.likely_share) < kThresholdShare) return {};
  // A generation loop's per-token syncs are per-token-sync's, with the same idle and the advice
  // for decoding: reporting them here too would count that idle twice.
  if (generation_syncs(rank).per_token) return {};

  Finding finding;
  finding.id = "host-device-sync";
  finding.bottleneck = Bottleneck::kHostDeviceSync;
  finding.part = StepPart::kWholeStep;
  finding.rank = trace.rank;
  const double per_step = static_cast<double>(sync_count) / static_cast<double>(steps);
  finding.title =
      share >= gain.likely_share
          ? fmt::format("{:.1f} blocking syncs per step leave the GPU idle {:.1f} % of it",
                        per_step, share * 100)
          : fmt::format(
                "{:.1f} blocking syncs per step hold the host back: without them the "
                "step would be {:.1f} % shorter",
                per_step, gain.likely_share * 100);
  finding.evidence.push_back(
      Evidence{"blocking calls per kept step", per_step, "calls/step", calls.all()});
  finding.evidence.push_back(
      Evidence{"GPU idle after those calls that this finding owns (idle "
               "during data loading is input-bound's), per step",
               static_cast<double>(idle_per_step) / 1e6, "ms/step", ops.all()});
  finding.evidence.push_back(Evidence{"step saved when the steps are replayed without the syncs",
                                      static_cast<double>(gain.likely_ns) / 1e6, "ms/step",
                                      calls.all()});
  finding.fix =
      "Keep values on the GPU inside the step: accumulate the loss as a tensor and call "
      "loss.item() (or .cpu(), .tolist(), print) only every N steps; avoid torch.nonzero and "
      "boolean-mask indexing in the loop, and torch.cuda.synchronize() outside timing code. "
      "torch.cuda.set_sync_debug_mode(\"warn\") reports each remaining sync with its stack.";
  finding.gain = std::move(gain);
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
