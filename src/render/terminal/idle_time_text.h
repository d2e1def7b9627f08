#pragma once

#include <string>

#include "stepscope/analysis/idle_time.h"

namespace stepscope::render {

std::string render_text(const IdleTimeResult& idle, int top);

}  // namespace stepscope::render
