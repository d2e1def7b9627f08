#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/steps.h"

namespace stepscope::render {

std::string render_text(const StepsResult& steps, const StepTimeStats& stats, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
