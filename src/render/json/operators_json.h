#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/operators.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const OperatorsResult& operators);

}  // namespace stepscope::render
