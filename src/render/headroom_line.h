// The verdict's headroom line, shared by the terminal and HTML reports: the peak of a GPU's
// memory against its capacity, where the peak happened and what held it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "stepscope/analysis/memory_headroom.h"

namespace stepscope::render {

// `text` makes a name from the trace safe for the output (printable() or escape()).
std::string headroom_line(const DeviceHeadroom& d,
                          const std::function<std::string(std::string_view)>& text);

}  // namespace stepscope::render
