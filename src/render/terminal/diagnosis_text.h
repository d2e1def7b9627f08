#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/diagnosis/diagnose.h"

namespace stepscope::render {

// The answer first: the verdict, then each finding with its evidence, fix and gain.
std::string render_text(const Diagnosis& diagnosis, int top, std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
