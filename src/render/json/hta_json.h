#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/hta/hta_report.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const hta::HtaReport& report);

}  // namespace stepscope::render
