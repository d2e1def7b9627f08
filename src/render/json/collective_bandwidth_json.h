#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/collective_bandwidth.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const CollectiveBandwidthResult& bandwidth);

}  // namespace stepscope::render
