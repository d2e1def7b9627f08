// The script that draws the report's timeline on a <canvas> from the JSON beside it: lanes,
// steps and phases, zoom (wheel) and pan (drag), details of the event under the pointer, and the
// events of a finding highlighted when its card is clicked. It writes what it drew into
// attributes (data-drawn-events, data-view, data-highlighted) that the browser test reads back.
#pragma once

#include <string_view>

namespace stepscope::render::html {

std::string_view timeline_script();

}  // namespace stepscope::render::html
