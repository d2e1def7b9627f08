#pragma once

#include <string>

#include "stepscope/analysis/launches.h"

namespace stepscope::render {

std::string render_text(const LaunchResult& launches, int top);

}  // namespace stepscope::render
