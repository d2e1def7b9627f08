#include "diagnosis/compile_state.h"

#include <string_view>

namespace stepscope {

namespace {

bool is_compiled_marker(EventClass c, std::string_view name) {
  if (is_device_activity(c)) return name.starts_with("triton_");
  if (c != EventClass::kOp && c != EventClass::kAnnotation) return false;
  return name.starts_with("CompiledFunction") || name.starts_with("Torch-Compiled Region") ||
         name.starts_with("TorchDynamo Cache Lookup");
}

}  // namespace

CompileState compile_state(const Trace& trace) {
  CompileState state;
  const EventTable& e = trace.events;
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    const std::string_view name = trace.name_of(i);
    if (is_launch_call(c)) {
      state.cuda_graphs =
          state.cuda_graphs || name == "cudaGraphLaunch" || name == "hipGraphLaunch";
    } else {
      state.compiled = state.compiled || is_compiled_marker(c, name);
    }
    if (state.compiled && state.cuda_graphs) break;
  }
  return state;
}

}  // namespace stepscope
