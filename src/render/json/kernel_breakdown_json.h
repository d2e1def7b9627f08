#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/kernel_breakdown.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const KernelBreakdownResult& kernels);

}  // namespace stepscope::render
