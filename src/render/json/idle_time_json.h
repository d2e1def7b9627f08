#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/idle_time.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const IdleTimeResult& idle);

}  // namespace stepscope::render
