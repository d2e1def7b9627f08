#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/launches.h"

namespace stepscope::render {

// One row per launch class that occurs; `top` is unused (four classes at most).
std::string render_text(const LaunchesResult& launches, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
