#pragma once

#include <string>
#include <string_view>

#include "render/text_layout.h"
#include "stepscope/analysis/what_if.h"

namespace stepscope::render {

// The time on the critical path per step by class, then the longest events on it, under
// `title`; the edges the trace lacks as notes. `replayed_as_recorded`: the path of the steps as
// the trace shows them, whose modelled step is compared with the measured one (a what-if's
// changed path is not).
std::string render_text(const CriticalPathResult& path, std::string_view title, int top,
                        std::size_t width = kDefaultTextWidth, bool replayed_as_recorded = true);

}  // namespace stepscope::render
