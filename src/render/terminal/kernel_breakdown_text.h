#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/kernel_breakdown.h"

namespace stepscope::render {

std::string render_text(const KernelBreakdownResult& kernels, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
