#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/phases.h"

namespace stepscope::render {

// One object: per phase the mean host and device time per kept step, then each step.
void write_json(JsonWriter& json, const PhasesResult& phases);

}  // namespace stepscope::render
