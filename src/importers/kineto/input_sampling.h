// The `input_functions` entry of `stepscope_host` (docs/stepscope-host.md): where the input
// pipeline's Python time went during a `stepscope run` window.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>

#include "load/import_notes.h"
#include "stepscope/trace.h"

namespace stepscope::kineto {

// Optional data: an entry that is not an object, or with a count or function that is not of
// its type, is left out and noted (at `offset`, the `stepscope_host` key's); never an error.
[[nodiscard]] std::optional<InputSampling> read_input_sampling(simdjson::dom::element entry,
                                                               ImportNotes& notes,
                                                               std::uint64_t offset);

}  // namespace stepscope::kineto
