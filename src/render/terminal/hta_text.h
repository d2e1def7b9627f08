#pragma once

#include <string>

#include "stepscope/analysis/hta/hta_report.h"

namespace stepscope::render {

std::string render_text(const hta::HtaReport& report, int top);

}  // namespace stepscope::render
