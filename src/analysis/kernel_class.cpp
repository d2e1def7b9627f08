#include "stepscope/analysis/kernel_class.h"

#include <algorithm>
#include <cctype>

namespace stepscope {

namespace {

bool contains_ignoring_case(std::string_view text, std::string_view needle) {
  return std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != text.end();
}

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

}  // namespace stepscope
