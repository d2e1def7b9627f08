// How tb_plugin types events (`profiler/trace.py@041e7ce9` `EventTypeMap`, `create_trace_event`),
// for the compat-tb analyses. Its map differs from stepscope's classes in a few places: only six
// runtime categories, gpu_user_annotation typed as a user annotation, no cuda_driver.
#pragma once

#include <string_view>

#include "stepscope/trace.h"

namespace stepscope::tb {

// The `python` category of old traces (tb's Python type); `python_function` is something else.
[[nodiscard]] bool is_legacy_python(const Trace& trace, EventIndex i);
// `runtime`, `cuda_runtime`, `mtia_runtime`, `glow_runtime`, `xpu_runtime`, `privateuse1_runtime`.
[[nodiscard]] bool is_runtime(const Trace& trace, EventIndex i);
// The events tb_plugin builds operator nodes from: ops, user and GPU annotations, legacy python.
[[nodiscard]] bool is_host_node(const Trace& trace, EventIndex i);
[[nodiscard]] bool is_profiler_step_name(std::string_view name);
// tb's `is_operator_node`: a cpu_op that is not a step, not `Optimizer.*`, not `DataParallel`.
[[nodiscard]] bool is_operator_node(const Trace& trace, EventIndex i);

}  // namespace stepscope::tb
