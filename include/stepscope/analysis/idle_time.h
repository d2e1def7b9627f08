// GPU idle time per stream and why (docs/metrics/05-hta-idle-time-breakdown-per-stream.md §5
// native): for each gap between consecutive activities of a stream, was the GPU waiting on the host
// (the next launch came late), on a short dependency between kernels, or on something else.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class IdleCause : std::uint8_t { kHostWait, kKernelWait, kOther, kUnlinked };
inline constexpr std::size_t kIdleCauseCount = 4;
[[nodiscard]] std::string_view to_string(IdleCause cause);

struct IdleCauseTotals {
  std::int64_t ns = 0;
  std::int64_t gaps = 0;
};

struct StreamIdle {
  std::int32_t device = -1;
  std::int64_t stream = -1;
  std::int64_t activities = 0;
  std::array<IdleCauseTotals, kIdleCauseCount> causes{};
  std::int64_t leading_idle_ns = 0;   // window start to the stream's first activity
  std::int64_t trailing_idle_ns = 0;  // last activity's end to the window end
  [[nodiscard]] std::int64_t idle_between_ns() const;
  // The cause's part of the idle between activities (0 when there is none).
  [[nodiscard]] double share(IdleCause cause) const;
  [[nodiscard]] const IdleCauseTotals& operator[](IdleCause cause) const {
    return causes[static_cast<std::size_t>(cause)];
  }
};

struct IdleTimeResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::int64_t kernel_wait_threshold_ns = 30'000;  // HTA's 30 µs
  std::vector<StreamIdle> streams;                 // by device, then stream
};

// Native: activities that overlap W, clipped to it; gaps against the running maximum of ends
// (never negative); an activity whose launch call is not in the trace is `unlinked`.
IdleTimeResult compute_idle_time(const Trace& trace, const StepsResult& steps,
                                 const AnalysisOptions& options);

}  // namespace stepscope
