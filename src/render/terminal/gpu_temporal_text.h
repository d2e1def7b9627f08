#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/gpu_temporal.h"

namespace stepscope::render {

std::string render_text(const GpuTemporalResult& temporal, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
