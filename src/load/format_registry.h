// The trace readers, one row per format: the loader guesses a file's kind from its first bytes
// (io/file_format.h) and hands the file to the row that reads that kind. A new format is one
// reader folder under src/importers/ and one row in format_registry.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "io/file_format.h"
#include "load/format_reader.h"
#include "stepscope/error.h"

namespace stepscope {

struct TraceReaderRow {
  io::FileFormat format;
  std::string_view name;  // the format in words, for messages and docs
  ReadTraceFile read;
};

[[nodiscard]] std::span<const TraceReaderRow> trace_readers();

// The row that reads `format`, or null when no reader does.
[[nodiscard]] const TraceReaderRow* reader_for(io::FileFormat format);

// The kind of the file at `path`, from its first bytes. An unrecognised file named like an
// Nsight Systems report (`.nsys-rep`, `.qdrep`), whose container has no magic of its own that
// stepscope checks, is taken as one.
Result<io::FileFormat> guess_file_format(const std::string& path);

}  // namespace stepscope
