#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/gpu_metrics.h"

namespace stepscope::render {

// One object: mode, window, per-device figures (shares as fractions, null when absent), quirks.
void write_json(JsonWriter& json, const GpuMetricsResult& metrics);

}  // namespace stepscope::render
