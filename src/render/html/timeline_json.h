// The timeline's data as the page's script reads it: compact JSON (events as arrays, names
// through a string table, times in ns relative to the data's origin), safe inside a
// <script type="application/json"> element.
#pragma once

#include <string>

#include "render/html/timeline_data.h"

namespace stepscope::render::html {

// Layout, documented for the script (timeline_script.cpp):
//   {"rank", "origin_ns", "span_ns", "shown", "candidates",
//    "lanes": [[label, is_device, rows]], "strings": [...], "classes": [...], "phase_names": [...],
//    "events": [[lane, row, start, dur, name, class, step, phase, op, launch, frame, module]],
//    "steps": [[number, start, end, why]], "phases": [[phase, start, end]],
//    "findings": [{"index", "id", "events": [event positions], "spans": [[start, end]]}]}
// Times are ns after origin_ns; string fields are indices into "strings", -1 for none.
// Appended to `out`, which grows once to hold it.
void append_timeline_json(std::string& out, const TimelineData& data);

}  // namespace stepscope::render::html
