// The reader of Nsight Systems exports: the SQLite database that `nsys export --type sqlite`
// (or `nsys profile --export sqlite`) writes, read into the same Trace the PyTorch profiler's
// JSON becomes, so that every analysis, rule and report applies unchanged
// (docs/nsight-systems.md says what maps to what).
#pragma once

#include <string>
#include <vector>

#include "stepscope/error.h"
#include "stepscope/load.h"
#include "stepscope/trace.h"

namespace stepscope::nsys {

// Reads an SQLite export, read-only and immutable (the file and its folder are left as they
// were). `notes` (may be null) receives what was accepted rather than refused and what the
// export lacks, one line each, naming the file.
Result<Trace> read_sqlite(const std::string& path, const LoadOptions& options,
                          std::vector<std::string>* notes);

// Reads a `.nsys-rep` report: with `nsys` on PATH, exports it to SQLite in a temporary folder
// (removed after) and reads that; otherwise an error that gives the command to run.
Result<Trace> read_report(const std::string& path, const LoadOptions& options,
                          std::vector<std::string>* notes);

}  // namespace stepscope::nsys
