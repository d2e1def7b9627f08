#pragma once

#include "render/json_writer.h"
#include "stepscope/analysis/module_view.h"

namespace stepscope::render {

// One object: the source of the hierarchy, the scope, and one row per module path in tree
// order (host and device time, total and self, in µs over the scope).
void write_json(JsonWriter& json, const ModuleViewResult& modules);

}  // namespace stepscope::render
