#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/compute_efficiency.h"

namespace stepscope::render {

// Nothing when the trace has no op with FLOPs: the section would only say so.
std::string render_text(const ComputeEfficiencyResult& efficiency, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
