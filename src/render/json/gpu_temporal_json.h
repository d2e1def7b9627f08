#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/gpu_temporal.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const GpuTemporalResult& temporal);

}  // namespace stepscope::render
