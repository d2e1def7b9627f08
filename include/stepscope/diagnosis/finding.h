// What the diagnosis says: the bottleneck of a run and ranked findings, each with the evidence
// it rests on (figures with units and the events behind them), the fix in PyTorch terms, and
// the gain to expect with the method of the estimate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/code_location.h"

namespace stepscope {

// Phase two of the method: which kind of bottleneck.
enum class Bottleneck : std::uint8_t {
  kInputPipeline,
  kHostOverhead,
  kHostDeviceSync,
  kGpuCompute,
  kMemoryTraffic,
  kCommunication,
  kMemoryCapacity,
  kHealthy,
  kUndetermined,  // the trace holds too little to tell (no kept steps)
};
[[nodiscard]] std::string_view to_string(Bottleneck bottleneck);

// Phase three: where in the step.
enum class StepPart : std::uint8_t {
  kDataLoading,
  kForward,
  kBackward,
  kOptimizer,
  kCommunication,
  kWholeStep,
};
[[nodiscard]] std::string_view to_string(StepPart part);

enum class Severity : std::uint8_t { kInfo, kLow, kMedium, kHigh };
[[nodiscard]] std::string_view to_string(Severity severity);

// The events a figure rests on: a name (op, kernel, call), how many, when, in which steps.
struct EventRefs {
  std::string name;
  std::int64_t count = 0;
  std::int64_t first_start_ns = 0;  // trace time of the first and last of them
  std::int64_t last_end_ns = 0;
  std::vector<std::int64_t> steps;  // step numbers, when the events sit in steps
};

struct Evidence {
  std::string label;  // what the figure is
  double value = 0;
  std::string unit;  // "ms/step", "%", "calls/step", "count", "x"
  std::vector<EventRefs> events;
};

// Saving per step, as a bound and a likely value, with the method in one line.
struct ExpectedGain {
  std::int64_t bound_ns = 0;
  std::int64_t likely_ns = 0;
  double bound_share = 0;  // of the mean step time
  double likely_share = 0;
  std::string method;
};

struct Finding {
  std::string id;  // stable: "input-bound", "host-device-sync", ...
  std::string title;
  Severity severity = Severity::kInfo;
  Bottleneck bottleneck = Bottleneck::kHealthy;
  StepPart part = StepPart::kWholeStep;
  std::int64_t rank = 0;
  std::vector<Evidence> evidence;
  std::string fix;  // concrete: the arguments or calls to change
  ExpectedGain gain;
  // The user's file:line and nn.Module behind the evidence events, where the trace has Python
  // stacks or module hierarchy: the location most of their time comes from (set after the rules).
  std::optional<CodeLocation> code;
};

// Severity from the likely saving's share of step time (thresholds in docs/rules.md).
[[nodiscard]] Severity severity_for(double likely_share);

}  // namespace stepscope
