// Stores an event's parsed args as the trace's rows: an EventArgs row, and a DeviceArgs or
// CollectiveArgs row only when the event has any of those fields (trace.h says why).
#pragma once

#include <cstdint>

#include "importers/kineto/raw_event.h"
#include "stepscope/trace.h"

namespace stepscope::kineto {

// Appends the rows of `event`, which has event args, and returns the index of its EventArgs row.
std::int32_t append_event_args(const RawEvent& event, Trace& trace);

}  // namespace stepscope::kineto
