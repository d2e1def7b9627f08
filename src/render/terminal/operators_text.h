#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/operators.h"

namespace stepscope::render {

// The top `top` op rows and device-activity rows, with the attributed share of device time.
std::string render_text(const OperatorsResult& operators, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
