// The annotated trace: the original trace file copied through unchanged, with the findings added
// as markers on a process of their own ("stepscope findings"), so that Perfetto or
// chrome://tracing shows where each finding sits. One thread per finding holds an instant event
// at the first time its evidence rests on and a span per group of evidence events.
#pragma once

#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/error.h"
#include "stepscope/trace.h"

namespace stepscope {

// Re-reads `source_path` (plain or gzip) in chunks and writes it to `out_path` with the markers
// inserted as the first elements of the top-level "traceEvents" array. The output is gzip when
// `out_path` ends in ".gz", plain JSON otherwise. It goes through a temporary file that is renamed
// into place, so a failure leaves no output behind. Errors name the file they are about.
Status write_annotated_trace(const std::string& source_path, const Trace& trace,
                             const Diagnosis& diagnosis, const std::string& out_path);

struct Report;
// The same for the single rank of an analyze report; an Error when the report holds several
// ranks (a folder), since each rank has its own source file.
Status write_annotated_report(const Report& report, const std::string& out_path);

}  // namespace stepscope
