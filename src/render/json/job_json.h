#pragma once

#include "render/json_writer.h"
#include "stepscope/job/job_analysis.h"

namespace stepscope::render {

// The `job` object of the JSON document (docs/json-schema.md, "job").
void write_json(JsonWriter& json, const job::JobAnalysis& job);

}  // namespace stepscope::render
