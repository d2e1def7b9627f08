// The findings as Chrome trace events on a process of their own.
#pragma once

#include <cstdint>
#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/trace.h"

namespace stepscope::annotate {

inline constexpr const char* kMarkerProcessName = "stepscope findings";
inline constexpr const char* kMarkerCategory = "stepscope";

// A numeric pid larger than any the trace uses (numbers, or strings that spell numbers), so
// that the markers never share a process with the trace's own events.
std::int64_t marker_pid(const Trace& trace);

// The marker events as comma-separated JSON objects, without brackets: process and thread
// metadata, then per finding an instant event and one span per evidence event group.
std::string finding_markers_json(const Trace& trace, const Diagnosis& diagnosis);

}  // namespace stepscope::annotate
