#pragma once

#include <string>

#include "stepscope/analysis/operators.h"

namespace stepscope::render {

std::string render_text(const OperatorTable& table, int top);

}  // namespace stepscope::render
