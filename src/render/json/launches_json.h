#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/launches.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const LaunchesResult& launches);

}  // namespace stepscope::render
