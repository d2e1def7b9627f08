#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/queue_length.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const QueueLengthResult& queues);

}  // namespace stepscope::render
