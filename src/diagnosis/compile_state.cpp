#include "diagnosis/compile_state.h"

#include <string_view>

#include "analysis/name_test.h"

namespace stepscope {

namespace {

bool is_graph_launch(std::string_view name) {
  return name == "cudaGraphLaunch" || name == "hipGraphLaunch";
}

bool is_triton_kernel(std::string_view name) { return name.starts_with("triton_"); }

bool is_compiled_region(std::string_view name) {
  return name.starts_with("CompiledFunction") || name.starts_with("Torch-Compiled Region") ||
         name.starts_with("TorchDynamo Cache Lookup");
}

bool names_any(const Trace& trace) {
  for (StringId id = 0; id < static_cast<StringId>(trace.strings.size()); ++id) {
    const std::string_view text = trace.strings.view(id);
    if (is_graph_launch(text) || is_triton_kernel(text) || is_compiled_region(text)) return true;
  }
  return false;
}

}  // namespace

CompileState compile_state(const Trace& trace) {
  CompileState state;
  // Most traces hold none of these names: their distinct strings (thousands, where events are
  // millions) say so.
  if (!names_any(trace)) return state;
  const EventTable& e = trace.events;
  // Each test once per distinct name: the pass visits every event of the trace.
  NameTest<is_graph_launch> graph_launch(trace);
  NameTest<is_triton_kernel> triton_kernel(trace);
  NameTest<is_compiled_region> compiled_region(trace);
  for (EventIndex i = 0; i < static_cast<EventIndex>(e.size()); ++i) {
    const EventClass c = e.event_class[i];
    if (is_launch_call(c)) {
      state.cuda_graphs = state.cuda_graphs || graph_launch(i);
    } else if (is_device_activity(c)) {
      state.compiled = state.compiled || triton_kernel(i);
    } else if (c == EventClass::kOp || c == EventClass::kAnnotation) {
      state.compiled = state.compiled || compiled_region(i);
    }
    if (state.compiled && state.cuda_graphs) break;
  }
  return state;
}

}  // namespace stepscope
