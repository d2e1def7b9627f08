#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/hta/hta_report.h"

namespace stepscope::render {

std::string render_text(const hta::HtaReport& report, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
