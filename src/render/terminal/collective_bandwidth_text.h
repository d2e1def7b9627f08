#pragma once

#include <string>

#include "stepscope/analysis/collective_bandwidth.h"

namespace stepscope::render {

std::string render_text(const CollectiveBandwidthResult& bandwidth, int top);

}  // namespace stepscope::render
