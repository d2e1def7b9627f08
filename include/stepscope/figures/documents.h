// The objects of the JSON documents that are not a rank's analyses (those are registered in
// analysis/catalogue.h): a rank's diagnosis, the job, the diff document... Registered once here,
// so that docs/json-schema.md and python/stepscope/_figures.py carry their tables and types.
#pragma once

#include <span>
#include <string_view>

#include "stepscope/figures/fields.h"

namespace stepscope::figures {

struct DocumentPart {
  std::string_view name;  // where the object appears, e.g. `ranks[].diagnosis`
  std::string_view doc;   // one line for docs/json-schema.md
  const TypeInfo& (*type)() = nullptr;
};

// In the order of docs/json-schema.md.
std::span<const DocumentPart> document_parts();

}  // namespace stepscope::figures
