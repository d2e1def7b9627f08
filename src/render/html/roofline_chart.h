// The roofline of the compute-efficiency analysis as an inline log-log SVG: the device's roof
// (memory-bound slope, then the flat compute peak) and one dot per top op at its intensity and
// achieved rate.
#pragma once

#include <string>

#include "stepscope/analysis/compute_efficiency.h"

namespace stepscope::render::html {

// The heading, one line of figures and the chart; without a known peak and bandwidth, one line
// that says why no roofline is drawn. Empty when the analysis does not apply.
std::string roofline_section(const ComputeEfficiencyResult& e, int top);

}  // namespace stepscope::render::html
