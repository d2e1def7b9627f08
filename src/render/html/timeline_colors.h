// The timeline's colours, in one place: the JSON hands them to the drawing script and the legend
// under the canvas is written from them, so the two cannot disagree.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "stepscope/analysis/phases.h"
#include "stepscope/trace.h"

namespace stepscope::render::html {

inline constexpr std::size_t kEventClassCount = 13;

// By EventClass value; classes the timeline never draws keep a neutral brown.
inline constexpr std::array<std::string_view, kEventClassCount> kClassColors = {
    "#4c78a8",  // kernel
    "#f58518",  // memcpy
    "#eeca3b",  // memset
    "#4c78a8",  // accelerator kernel
    "#9d755d", "#9d755d",
    "#54a24b",  // op
    "#b279a2",  // annotation
    "#e45756",  // runtime
    "#ff9da6",  // driver
    "#9d755d", "#9d755d", "#9d755d"};

// By Phase value.
inline constexpr std::array<std::string_view, kPhaseCount> kPhaseColors = {
    "#4c78a8", "#f58518", "#54a24b", "#eeca3b", "#bab0ac"};

inline constexpr std::string_view kHighlightColor = "#d62728";

}  // namespace stepscope::render::html
