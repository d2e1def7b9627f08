#pragma once

#include <string>

#include "stepscope/analysis/gpu_temporal.h"

namespace stepscope::render {

std::string render_text(const GpuTemporalResult& temporal, int top);

}  // namespace stepscope::render
