#pragma once

#include <string>

#include "stepscope/analysis/operators.h"

namespace stepscope::render {

// The top `top` op rows and device-activity rows, with the attributed share of device time.
std::string render_text(const OperatorsResult& operators, int top);

}  // namespace stepscope::render
