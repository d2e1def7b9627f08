// Native classes of device activity (docs/metrics/04-hta-gpu-kernel-breakdown.md §4.1): by category
// first, then by name.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

enum class ActivityClass : std::uint8_t { kComputation, kCommunication, kMemory, kNotActivity };
[[nodiscard]] std::string_view to_string(ActivityClass activity_class);

// gpu_memcpy / gpu_memset -> memory; kernels named *nccl* / *rccl* / *hccl* (any case) or
// *cross_device_reduce* -> communication; ROCm copy and fill kernels -> memory; other kernels
// and accelerator kernels -> computation; everything else is not device activity.
[[nodiscard]] ActivityClass classify_activity(EventClass event_class, std::string_view name);
[[nodiscard]] ActivityClass classify_activity(const Trace& trace, EventIndex event);

// The same classification, done once per distinct kernel name: names are interned, and a pass
// over millions of kernels would otherwise match the same long names again and again.
class ActivityClassifier {
 public:
  explicit ActivityClassifier(const Trace& trace);
  // Inline for host events, which are most of a trace and never device activity: passes that
  // classify every event pay a comparison for them, not a call.
  [[nodiscard]] ActivityClass operator()(EventIndex event) {
    if (!is_device_activity(trace_.events.event_class[event])) return ActivityClass::kNotActivity;
    return classify_device_activity(event);
  }

 private:
  [[nodiscard]] ActivityClass classify_device_activity(EventIndex event);

  const Trace& trace_;
  std::vector<std::uint8_t> kernel_class_by_name_;
};

}  // namespace stepscope
