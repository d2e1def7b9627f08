// The PyTorch profiler (Kineto) JSON reader: a `.json` or `.json.gz` file, standard input, or JSON
// held in memory, into one Trace. Its row in load/format_registry.cpp takes JSON and gzip.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stepscope/error.h"
#include "stepscope/load.h"
#include "stepscope/trace.h"

namespace stepscope::kineto {

// A ReadTraceFile (load/format_reader.h).
Result<Trace> read_file(const std::string& path, const LoadOptions& options,
                        std::vector<std::string>* notes);

// JSON held in memory, read on one thread; `name` stands for the file name.
Result<Trace> read_text(std::string_view json, const std::string& name);

}  // namespace stepscope::kineto
