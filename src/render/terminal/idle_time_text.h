#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/idle_time.h"

namespace stepscope::render {

std::string render_text(const IdleTimeResult& idle, int top, std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
