// The report's timeline section for one rank: the note saying which steps and how many events
// are shown, the canvas, the data as JSON, the drawing script, and how to open the annotated
// trace in Perfetto for everything the page leaves out.
#pragma once

#include <string>

#include "render/html/timeline_data.h"

namespace stepscope::render::html {

// Appended to `out` (the page's string: the section's data is most of a report's bytes).
// `several`: one of several ranks on the page; each gets a share of the event cap so that the
// page stays within its size budget.
void append_timeline_section(std::string& out, const RankAnalyses& analyses,
                             const Diagnosis& diagnosis, bool several);

// The section for data already selected (tests build it from a fixture).
void append_timeline_section(std::string& out, const TimelineData& data);

}  // namespace stepscope::render::html
