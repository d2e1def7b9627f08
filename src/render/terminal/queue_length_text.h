#pragma once

#include <string>

#include "stepscope/analysis/queue_length.h"

namespace stepscope::render {

// The `top` streams with the deepest queues.
std::string render_text(const QueueLengthResult& queues, int top);

}  // namespace stepscope::render
