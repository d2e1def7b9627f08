#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/step_breakdown.h"

namespace stepscope::render {

// One object: mode, applicability, the mean and per-step role times in µs, compat quirks.
void write_json(JsonWriter& json, const StepBreakdownResult& breakdown);

}  // namespace stepscope::render
