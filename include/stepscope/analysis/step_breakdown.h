// The 8-way step-time breakdown of tb_plugin
// (docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9): every nanosecond of every kept
// step goes to exactly one role, by priority (Kernel first, Other last).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// In priority order: a role only gets the step time that no earlier role took.
enum class StepRole : std::uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kOther,
};
inline constexpr std::size_t kStepRoleCount = 8;
// "kernel", "memcpy", "memset", "communication", "runtime", "data_loader", "cpu_exec", "other".
[[nodiscard]] std::string_view to_string(StepRole role);

struct RoleTimes {
  std::array<std::int64_t, kStepRoleCount> ns{};  // indexed by StepRole
  // Native only: the Runtime role split into blocking calls (synchronize, synchronous copies,
  // stream waits) and the rest; runtime_sync_ns + runtime_launch_ns == ns[kRuntime].
  std::int64_t runtime_sync_ns = 0;
  std::int64_t runtime_launch_ns = 0;
  std::int64_t total_ns = 0;  // the step length (compat-tb: the roles may add up to more)

  [[nodiscard]] std::int64_t operator[](StepRole role) const {
    return ns[static_cast<std::size_t>(role)];
  }
  [[nodiscard]] std::int64_t roles_sum_ns() const;
};

struct StepBreakdownRow {
  std::int64_t step_number = 0;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  RoleTimes roles;
};

struct StepBreakdownResult {
  Mode mode = Mode::kNative;
  bool applicable = false;
  std::string not_applicable_reason;    // e.g. "no kept steps"
  std::vector<StepBreakdownRow> steps;  // kept steps, in order
  RoleTimes sum;                        // over kept steps
  RoleTimes mean;                       // sum / number of kept steps, rounded to the ns
  // compat-tb: the tb_plugin artefacts that shaped this result (see
  // docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9).
  std::vector<std::string> quirks;
};

// Native: docs/metrics/09-tb-plugin-step-time-breakdown-8-roles.md §9 "stepscope (native)".
// compat-tb: tb_plugin 0.4.3 as the plugin computes it, including the "free restarts" artefact.
// compat-hta has no breakdown: it runs as native.
StepBreakdownResult compute_step_breakdown(const Trace& trace, const StepsResult& steps,
                                           const AnalysisOptions& options);

}  // namespace stepscope
