#pragma once

#include <string>

#include "stepscope/analysis/memory_curve.h"

namespace stepscope::render {

// Peaks, what runs at each device's allocation peak, growth across steps, and the `top` ops
// holding live memory at the peak. Empty when the trace has no memory events.
std::string render_text(const Trace& trace, const MemoryCurveResult& memory, int top);

}  // namespace stepscope::render
