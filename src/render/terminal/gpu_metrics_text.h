#pragma once

#include <string>

#include "stepscope/analysis/gpu_metrics.h"

namespace stepscope::render {

// A heading, one row per device, then the `top` tensor-core rules by kernel time.
std::string render_text(const GpuMetricsResult& metrics, int top);

}  // namespace stepscope::render
