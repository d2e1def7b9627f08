// One cause per idle moment (docs/metrics/16-idle-attribution.md): every nanosecond of GPU idle
// inside the kept steps is given to at most one cause, in a fixed order, so the findings built
// on it never claim the same idle twice.
//
//   1. data loading: the host is inside a DataLoader / DataPipe `__next__` span;
//   2. host-device sync: after a blocking call (synchronize, synchronous copy, `.item()`) has
//      returned, until the GPU has work again;
//   3. launch: the next GPU activity was launched only after the GPU ran dry (the host was late);
//   4. other host work: the rest.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "stepscope/analysis/data_loading.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class IdleOwner : std::uint8_t { kDataLoading, kHostDeviceSync, kLaunch, kOtherHost };
inline constexpr std::size_t kIdleOwnerCount = 4;
[[nodiscard]] std::string_view to_string(IdleOwner cause);

struct IdleAttributionResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::int64_t steps = 0;                          // kept steps measured
  std::int64_t step_ns = 0;                        // their total duration
  std::int64_t idle_ns = 0;                        // GPU idle inside them (all devices merged)
  std::array<IntervalSet, kIdleOwnerCount> owned;  // disjoint, inside the kept steps

  [[nodiscard]] const IntervalSet& of(IdleOwner cause) const {
    return owned[static_cast<std::size_t>(cause)];
  }
  // Mean per kept step (ns) of the idle a cause owns; 0 when nothing was measured.
  [[nodiscard]] std::int64_t per_step_ns(IdleOwner cause) const;
};

// A host call that blocks until the device has drained its queue (or a copy completes).
[[nodiscard]] bool is_blocking_call(std::string_view name);

IdleAttributionResult attribute_idle(const Trace& trace, const StepsResult& steps);

}  // namespace stepscope
