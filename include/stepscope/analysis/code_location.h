// The line of user code and the nn.Module behind an event, from the Python context a trace
// carries: `python_function` frames (torch.profiler with_stack=True, which also records
// `nn.Module: Name_N` frames) or `nn.Module: Name_N` annotations (stepscope.torch.profile's
// module hierarchy without stacks). A frame's line is where its function starts, as PyTorch's
// tracer records it (the line of the call is not in the trace), except for frames already
// running when tracing began, which show their current line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

// Where an event comes from in the user's code; any part may be missing.
struct CodeLocation {
  std::string file;  // as the tracer writes it (relative to a sys.path entry); empty: none
  std::int64_t line = 0;
  std::string function;
  std::string module_path;  // "Net_0/Block_1/Linear_0"; empty: no nn.Module around it
  [[nodiscard]] bool empty() const { return file.empty() && module_path.empty(); }
  bool operator==(const CodeLocation&) const = default;
};

// A `python_function` event name, `file.py(LINE): function`, taken apart.
struct PythonFrame {
  std::string_view file;
  std::int64_t line = 0;
  std::string_view function;
};
[[nodiscard]] std::optional<PythonFrame> parse_python_frame(std::string_view name);

// Library code, not the user's: PyTorch and its relatives, other packages commonly found in
// site-packages, the standard library, built-ins (`<built-in …>`, `<frozen …>`, generated code).
// The tracer strips sys.path prefixes, so the first path component is what tells them apart.
[[nodiscard]] bool is_library_file(std::string_view file);

// `nn.Module: Linear_0` → `Linear_0`; empty when the name is not a module frame.
[[nodiscard]] std::string_view module_name(std::string_view event_name);

// Per event, the innermost enclosing Python context, found once by a sweep over each thread.
struct CodeContext {
  bool has_stacks = false;   // python_function frames with file names
  bool has_modules = false;  // nn.Module frames or annotations
  std::int64_t python_events = 0;
  std::int64_t module_events = 0;
  // Empty when the trace has no Python context; else one entry per event:
  std::vector<EventIndex> user_frame;     // first user frame outwards (the event itself included)
  std::vector<EventIndex> module;         // innermost nn.Module event around (or equal to) it
  std::vector<EventIndex> parent_module;  // for module events: the module around them
  [[nodiscard]] bool empty() const { return user_frame.empty(); }
};

CodeContext compute_code_context(const Trace& trace);

// `Net_0/Block_1/Linear_0` for a module event.
[[nodiscard]] std::string module_path(const Trace& trace, const CodeContext& context,
                                      EventIndex module_event);

// Where `event` comes from. Device activity is located through the op it is attributed to (or
// its launch call); an event without Python context gives an empty location.
[[nodiscard]] CodeLocation locate(const Trace& trace, const CodeContext& context, EventIndex event);

// How to record what this analysis needs, in one line (for reports of traces without it).
[[nodiscard]] std::string_view how_to_record_code_context();

}  // namespace stepscope
