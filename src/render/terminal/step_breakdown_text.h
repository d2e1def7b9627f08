#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/step_breakdown.h"

namespace stepscope::render {

// A heading, the mean per kept step by role (time and share), then up to `top` steps.
std::string render_text(const StepBreakdownResult& breakdown, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
