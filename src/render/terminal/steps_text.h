#pragma once

#include <string>

#include "stepscope/analysis/steps.h"

namespace stepscope::render {

std::string render_text(const StepsResult& steps, const StepTimeStats& stats, int top);

}  // namespace stepscope::render
