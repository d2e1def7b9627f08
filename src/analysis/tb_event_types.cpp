#include "analysis/tb_event_types.h"

#include "trace/ascii.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace stepscope::tb {

namespace {}  // namespace

bool is_legacy_python(const Trace& trace, EventIndex i) {
  return trace.events.event_class[i] == EventClass::kPython &&
         equals_ignoring_case(trace.strings.view(trace.events.category[i]), "python");
}

bool is_runtime(const Trace& trace, EventIndex i) {
  static constexpr std::array<std::string_view, 6> kRuntimes = {
      "runtime",      "cuda_runtime", "mtia_runtime",
      "glow_runtime", "xpu_runtime",  "privateuse1_runtime"};
  if (trace.events.event_class[i] != EventClass::kRuntime) return false;
  const std::string_view category = trace.strings.view(trace.events.category[i]);
  return std::any_of(kRuntimes.begin(), kRuntimes.end(),
                     [&](std::string_view known) { return equals_ignoring_case(category, known); });
}

bool is_host_node(const Trace& trace, EventIndex i) {
  const EventClass c = trace.events.event_class[i];
  return c == EventClass::kOp || c == EventClass::kAnnotation || c == EventClass::kGpuAnnotation ||
         is_legacy_python(trace, i);
}

bool is_profiler_step_name(std::string_view name) { return name.substr(0, 13) == "ProfilerStep#"; }

bool is_operator_node(const Trace& trace, EventIndex i) {
  if (trace.events.event_class[i] != EventClass::kOp) return false;
  const std::string_view name = trace.name_of(i);
  return !is_profiler_step_name(name) && name.substr(0, 10) != "Optimizer." &&
         name != "DataParallel.forward" && name != "DistributedDataParallel.forward";
}

}  // namespace stepscope::tb
