// What every trace reader offers the loader: one function that reads one file into one Trace.
// The loader (load.cpp) does everything that does not depend on the format: folders, ranks,
// duplicate ranks, --skip-bad, out-of-memory; a reader only turns its file into a Trace.
#pragma once

#include <string>
#include <vector>

#include "stepscope/error.h"
#include "stepscope/load.h"
#include "stepscope/trace.h"

namespace stepscope {

// Reads `path` ("-": standard input, for the readers that stream) into a Trace whose rank is
// the one the file states (Trace::rank_source kDistributedInfo), else left at its default for
// the loader to take from the file name or the folder order. `notes` (may be null) receives what
// the reader accepted rather than refused, one line each, naming the file. Errors name the file.
using ReadTraceFile = Result<Trace> (*)(const std::string& path, const LoadOptions& options,
                                        std::vector<std::string>* notes);

}  // namespace stepscope
