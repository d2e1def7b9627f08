#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/phases.h"

namespace stepscope::render {

// A heading and one row per phase: mean host time, its share of the step, mean device time.
std::string render_text(const PhasesResult& phases, int top, std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
