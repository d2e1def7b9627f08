#pragma once

#include <string>

#include "render/text_layout.h"

#include "stepscope/analysis/queue_length.h"

namespace stepscope::render {

// The `top` streams with the deepest queues.
std::string render_text(const QueueLengthResult& queues, int top,
                        std::size_t width = kDefaultTextWidth);

}  // namespace stepscope::render
