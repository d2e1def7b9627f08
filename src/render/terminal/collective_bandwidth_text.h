#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/collective_bandwidth.h"

namespace stepscope::render {

std::string render_text(const CollectiveBandwidthResult& bandwidth, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
