// Resolves, once at load, the links analyses follow: per-thread nesting of host events, the
// launch call of each device activity (correlation id) and the op each activity is attributed
// to (External id, else through its launch call;
// docs/metrics/12-operator-table-like-torch-profiler-key-a.md §12).
#pragma once

#include "load/import_notes.h"
#include "stepscope/trace.h"

namespace stepscope {

// Requires events sorted by start time, longer first on ties.
// Duplicate correlation ids are resolved and noted in `notes`. With two threads, nesting and
// launches (independent of each other) are linked side by side.
void link_events(Trace& trace, ImportNotes& notes, unsigned threads = 1);

}  // namespace stepscope
