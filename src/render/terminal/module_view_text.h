#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/module_view.h"

namespace stepscope::render {

// A heading and the module tree (the `top` modules by host time, indented by depth), per kept
// step; without module hierarchy, one line saying how to record it.
std::string render_text(const ModuleViewResult& modules, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
