// The planner's measurement as JSON fields, written the same way in the saved measurement
// (plan_document.cpp) and in the plan's "measured" object (plan.cpp).
#pragma once

#include "render/json_writer.h"
#include "stepscope/memory/plan_document.h"

namespace stepscope::memory {

// Every measured field, device to timing_b, into the object `json` has open.
void write_measurement_fields(render::JsonWriter& json, const PlanMeasurement& m);

}  // namespace stepscope::memory
