#include "stepscope/analysis/kernel_class.h"

#include "trace/ascii.h"

#include <algorithm>
#include <cctype>

namespace stepscope {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

std::string_view to_string(ActivityClass activity_class) {
  switch (activity_class) {
    case ActivityClass::kComputation:
      return "computation";
    case ActivityClass::kCommunication:
      return "communication";
    case ActivityClass::kMemory:
      return "memory";
    case ActivityClass::kNotActivity:
      return "not_activity";
  }
  return "unknown";
}

ActivityClass classify_activity(EventClass event_class, std::string_view name) {
  switch (event_class) {
    case EventClass::kMemcpy:
    case EventClass::kMemset:
      return ActivityClass::kMemory;
    case EventClass::kAcceleratorKernel:
      return ActivityClass::kComputation;
    case EventClass::kKernel:
      break;
    default:
      return ActivityClass::kNotActivity;
  }
  if (contains_ignoring_case(name, "nccl") || contains_ignoring_case(name, "rccl") ||
      contains_ignoring_case(name, "hccl") || name.find("cross_device_reduce") != name.npos) {
    return ActivityClass::kCommunication;
  }
  if (starts_with(name, "MEMORY_COPY_") || starts_with(name, "__amd_rocclr_copyBuffer") ||
      starts_with(name, "__amd_rocclr_fillBuffer")) {
    return ActivityClass::kMemory;
  }
  return ActivityClass::kComputation;
}

ActivityClass classify_activity(const Trace& trace, EventIndex event) {
  return classify_activity(trace.events.event_class[event], trace.name_of(event));
}

namespace {
constexpr std::uint8_t kUnknown = 0xff;
}

ActivityClassifier::ActivityClassifier(const Trace& trace)
    : trace_(trace), kernel_class_by_name_(trace.strings.size(), kUnknown) {}

ActivityClass ActivityClassifier::classify_device_activity(EventIndex event) {
  const EventClass event_class = trace_.events.event_class[event];
  if (event_class != EventClass::kKernel) return classify_activity(event_class, {});
  std::uint8_t& cached = kernel_class_by_name_[trace_.events.name[event]];
  if (cached == kUnknown) {
    cached = static_cast<std::uint8_t>(classify_activity(event_class, trace_.name_of(event)));
  }
  return static_cast<ActivityClass>(cached);
}

}  // namespace stepscope
