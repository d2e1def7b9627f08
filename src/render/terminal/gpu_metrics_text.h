#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/gpu_metrics.h"

namespace stepscope::render {

// A heading, one row per device, then the `top` tensor-core rules by kernel time.
std::string render_text(const GpuMetricsResult& metrics, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
