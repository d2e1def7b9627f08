#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/steps.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const StepsResult& steps);
void write_json(JsonWriter& json, const StepTimeStats& stats);
// Statistics of durations in nanoseconds, written in microseconds.
void write_duration_statistics(JsonWriter& json, const Statistics& stats);

}  // namespace stepscope::render
