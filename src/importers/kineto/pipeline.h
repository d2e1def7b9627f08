// How the importer's three stages (split, parse, build) are scheduled. Sequential runs them on
// the calling thread. Parallel runs `parse_workers` threads beside the calling one: each splits
// the next batch when the splitter is free, or parses a waiting batch; the calling thread builds
// in file order, so that the result (and the first error reported) is the same as the
// sequential run's, and splits or parses while the next batch in order is not ready.
#pragma once

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/progress_tick.h"
#include "importers/kineto/trace_builder.h"
#include "stepscope/error.h"

namespace stepscope::kineto {

Status run_sequential(EventSplitter& splitter, TraceBuilder& builder, const ProgressTick& tick);
Status run_parallel(EventSplitter& splitter, TraceBuilder& builder, unsigned parse_workers,
                    const ProgressTick& tick);

}  // namespace stepscope::kineto
