// What the import left out of a trace (events it could not use), in words: every front end
// says it, so that no reader of a report takes a trace for whole when it is not.
#pragma once

#include <string>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope::render {

// One line per kind of event skipped, with the count; empty when nothing was.
std::vector<std::string> dropped_events(const Trace& trace);

}  // namespace stepscope::render
