#pragma once

#include <string>

#include "stepscope/analysis/kernel_breakdown.h"

namespace stepscope::render {

std::string render_text(const KernelBreakdownResult& kernels, int top);

}  // namespace stepscope::render
