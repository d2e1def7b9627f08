#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/memory_curve.h"

namespace stepscope::render {

// Peaks, what runs at each device's allocation peak, growth across steps, and the `top` ops
// holding live memory at the peak. Empty when the trace has no memory events.
std::string render_text(const Trace& trace, const MemoryCurveResult& memory, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
