// Training phases per kept step (forward, backward, optimizer, data loading), from the markers
// a trace carries. No peer defines this breakdown;
// docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9 (last paragraph) names the markers.
// It is kept apart from the 8-way roles of step_breakdown.h and never mixed with them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// Display order. Where host spans of phases overlap, the priority is data loading, optimizer,
// backward, forward (the more specific marker wins; forward is the broadest and often inferred).
enum class Phase : std::uint8_t { kForward, kBackward, kOptimizer, kDataLoading, kOther };
inline constexpr std::size_t kPhaseCount = 5;
// "forward", "backward", "optimizer", "data_loading", "other".
[[nodiscard]] std::string_view to_string(Phase phase);

struct PhaseTimes {
  // Host time: the step's time covered by each phase's host spans (union over threads, by
  // priority); other = the rest, so host_ns adds up to step_ns.
  std::array<std::int64_t, kPhaseCount> host_ns{};
  // Device time: |U(device activity launched from the phase) ∩ step|; phases can overlap on
  // concurrent streams, so these need not add up to anything.
  std::array<std::int64_t, kPhaseCount> device_ns{};
  std::int64_t step_ns = 0;

  [[nodiscard]] std::int64_t host(Phase p) const { return host_ns[static_cast<std::size_t>(p)]; }
  [[nodiscard]] std::int64_t device(Phase p) const {
    return device_ns[static_cast<std::size_t>(p)];
  }
};

struct StepPhases {
  std::int64_t step_number = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  PhaseTimes times;
  // No `## forward ##` marker in the step: forward = the step's top-level ops before its first
  // backward marker that belong to no other phase.
  bool forward_inferred = false;
};

// A `## name ##` marker whose name is none of the phases (stepscope.torch's prof.phase("loss")),
// shown under the name as written: the host time its spans cover per kept step. That time also
// counts in whichever phase holds it (usually `other`).
struct LabelledTime {
  std::string name;
  std::int64_t markers = 0;
  std::int64_t mean_host_ns = 0;  // per kept step, rounded to the ns
};

struct PhasesResult {
  Mode mode = Mode::kNative;
  bool applicable = false;
  std::string not_applicable_reason;
  std::vector<StepPhases> steps;  // kept steps
  PhaseTimes sum;
  PhaseTimes mean;                                  // sum / kept steps, rounded to the ns
  std::array<std::int64_t, kPhaseCount> markers{};  // marker events found, by phase
  std::vector<LabelledTime> labels;                 // by host time, largest first
  std::vector<std::string> notes;
};

// Markers: `## forward ##`-style user annotations (forward/fwd, backward/bwd, optimizer/optim,
// dataloader/data_loading), `Optimizer.step#…` and `Optimizer.zero_grad#…`, outermost
// `autograd::engine::evaluate_function:` ops and every top-level op of the threads that run them
// (the backward threads), `enumerate(DataLoader)#….__next__` / `enumerate(DataPipe)#…`. Device
// activity takes the phase of the innermost marker around its launch call. The mode only picks
// the steps (compat-tb: tb_plugin's); the phases themselves have no peer to reproduce.
PhasesResult compute_phases(const Trace& trace, const StepsResult& steps,
                            const AnalysisOptions& options);

// The phase an event marks when it is one of the markers above, else nullopt.
[[nodiscard]] std::optional<Phase> phase_of_marker(const Trace& trace, EventIndex event);

// phase_of_marker for many events of one trace, the name tests decided once per distinct name
// (the timeline asks it of every event it draws and of their ancestors).
class MarkerPhases {
 public:
  explicit MarkerPhases(const Trace& trace);
  MarkerPhases(const MarkerPhases&) = delete;
  MarkerPhases& operator=(const MarkerPhases&) = delete;
  ~MarkerPhases();
  [[nodiscard]] std::optional<Phase> of(EventIndex event);

 private:
  class Names;
  std::unique_ptr<Names> names_;
};

}  // namespace stepscope
