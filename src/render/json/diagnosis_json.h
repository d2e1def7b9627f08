#pragma once

#include "render/json_writer.h"
#include "stepscope/diagnosis/diagnose.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const Diagnosis& diagnosis);
void write_json(JsonWriter& json, const Finding& finding);

}  // namespace stepscope::render
