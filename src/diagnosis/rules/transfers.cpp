// Rule: host-device transfers on the critical path. Pageable host-to-device copies are staged
// through a bounce buffer and cannot overlap compute; device-to-host copies inside the step
// stall the host until they finish.
//
// Evidence: memcpy time per step by direction and memory kind (from the activity name Kineto
// writes, e.g. "Memcpy HtoD (Pageable -> Device)"), the part of it with the GPU doing nothing
// else, and the ops that issued them (`aten::copy_`, `aten::to`).
// Threshold: copies with no compute beside them >= 3 % of the mean step. Copies made by a scalar
// read (`aten::item`, `aten::_local_scalar_dense`) are left to host-device-sync.
#include <fmt/format.h>

#include "diagnosis/gain.h"
#include "diagnosis/rules/rules.h"
#include "stepscope/analysis/kernel_class.h"

namespace stepscope::rules {

namespace {

constexpr double kThresholdShare = 0.03;
// Pinned, non-blocking copies overlap with compute on a separate copy engine; what remains is
// the part the next kernel needs before it can start: assume half is hidden.
constexpr double kLikelyHiddenShare = 0.5;

bool is_pageable_or_device_to_host(std::string_view name) {
  return name.find("Pageable") != std::string_view::npos ||
         name.find("DtoH") != std::string_view::npos;
}

EventIndex issuing_op(const Trace& trace, EventIndex activity) {
  const EventIndex call = trace.events.launcher[activity];
  if (call == kNoEvent) return kNoEvent;
  EventIndex op = kNoEvent;
  for (EventIndex at = trace.events.parent[call]; at != kNoEvent; at = trace.events.parent[at]) {
    if (trace.name_of(at).rfind("ProfilerStep#", 0) == 0) break;
    if (trace.events.event_class[at] == EventClass::kOp) op = at;
  }
  return op;
}

// A copy a scalar read (`.item()`) makes is the host waiting for a result, not a transfer to
// speed up: pinned memory would not help it. host-device-sync owns it (its fix is to stop
// reading a scalar every step).
bool issued_by_scalar_read(const Trace& trace, EventIndex activity) {
  const EventIndex call = trace.events.launcher[activity];
  if (call == kNoEvent) return false;
  for (EventIndex at = trace.events.parent[call]; at != kNoEvent; at = trace.events.parent[at]) {
    const std::string_view name = trace.name_of(at);
    if (name == "aten::item" || name == "aten::_local_scalar_dense") return true;
  }
  return false;
}

}  // namespace

std::vector<Finding> check_transfers(const RankAnalyses& rank) {
  const double step_ns = mean_step_ns(rank);
  const auto kept = rank.steps.kept();
  if (step_ns <= 0 || kept.empty()) return {};
  const Trace& trace = *rank.trace;
  const EventTable& e = trace.events;
  std::vector<Interval> compute;
  std::vector<Interval> copies;
  EventRefList copy_refs;
  EventRefList op_refs;
  for (const EventIndex i : e.device_activities) {
    const EventClass c = e.event_class[i];
    if (c == EventClass::kKernel || c == EventClass::kAcceleratorKernel) {
      compute.push_back({e.start_ns[i], e.end_ns(i)});
      continue;
    }
    if (c != EventClass::kMemcpy || !is_pageable_or_device_to_host(trace.name_of(i))) continue;
    if (issued_by_scalar_read(trace, i)) continue;
    const Step* step = step_at(rank.steps, e.start_ns[i]);
    if (step == nullptr) continue;
    copies.push_back({e.start_ns[i], e.end_ns(i)});
    copy_refs.add(trace.name_of(i), e.start_ns[i], e.end_ns(i), step);
    if (const EventIndex op = issuing_op(trace, i); op != kNoEvent) {
      op_refs.add(trace.name_of(op), e.start_ns[op], e.end_ns(op), step);
    }
  }
  if (copies.empty()) return {};
  const IntervalSet copy_time = IntervalSet::from_sorted(copies);
  const IntervalSet exposed = copy_time.subtract(IntervalSet::from_sorted(compute));
  const auto steps = static_cast<double>(kept.size());
  const auto exposed_per_step =
      static_cast<std::int64_t>(static_cast<double>(exposed.measure()) / steps);
  const double share = static_cast<double>(exposed_per_step) / step_ns;
  if (share < kThresholdShare) return {};

  Finding finding;
  finding.id = "transfers";
  finding.bottleneck = Bottleneck::kMemoryTraffic;
  finding.part = StepPart::kDataLoading;
  finding.rank = trace.rank;
  finding.title = fmt::format(
      "Pageable or device-to-host copies with nothing else on the GPU take {:.1f} % of each step",
      share * 100);
  finding.evidence.push_back(Evidence{"pageable H2D and D2H copy time per step",
                                      static_cast<double>(copy_time.measure()) / steps / 1e6,
                                      "ms/step", copy_refs.all()});
  finding.evidence.push_back(Evidence{"of which with no kernel running",
                                      static_cast<double>(exposed_per_step) / 1e6, "ms/step",
                                      op_refs.all()});
  finding.fix =
      "Copy from pinned memory without blocking: DataLoader(..., pin_memory=True) and "
      "tensor.to(device, non_blocking=True); keep results on the GPU instead of .cpu() / .numpy() "
      "inside the step, and create tensors on the device (torch.zeros(..., device=\"cuda\")) "
      "rather than moving them there.";
  finding.gain = make_gain(
      exposed_per_step,
      static_cast<std::int64_t>(static_cast<double>(exposed_per_step) * kLikelyHiddenShare),
      step_ns,
      "bound: copy time with no kernel running; likely: half of it, which pinned non-blocking "
      "copies overlap with compute");
  finding.severity = severity_for(finding.gain.likely_share);
  return {finding};
}

}  // namespace stepscope::rules
