// A .json.gz inflated ahead (io/inflate_ahead.h): the calling thread reads the text in place as
// it grows, while another inflates it; that one then reads a later part from an event start it
// chooses past what the calling thread has been shown, and the calling thread absorbs it
// (read_in_parts.h reads a mapped trace in parts the same way).
#pragma once

#include <cstddef>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/progress_tick.h"
#include "importers/kineto/trace_builder.h"
#include "io/inflate_ahead.h"
#include "stepscope/error.h"

namespace stepscope::kineto {

Status run_inflating_ahead(EventSplitter& splitter, TraceBuilder& builder,
                           io::InflatingBuffer& buffer, std::size_t expected_events,
                           const ProgressTick& tick);

}  // namespace stepscope::kineto
