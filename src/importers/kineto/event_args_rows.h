// Stores an event's parsed args as the trace's rows: an EventArgs row, a DeviceArgs or
// CollectiveArgs row only when the event has any of those fields (trace.h says why), and the
// OpInputs row its input texts name, shared with every op that has the same texts.
#pragma once

#include <cstdint>

#include "importers/kineto/op_inputs.h"
#include "importers/kineto/raw_event.h"
#include "importers/kineto/successor_interner.h"
#include "stepscope/trace.h"

namespace stepscope::kineto {

// The argument texts that repeat from step to step, each interned as its own sequence, and the
// OpInputs rows read from them.
struct EventArgsInterners {
  SuccessorInterner input_dims;
  SuccessorInterner input_types;
  SuccessorInterner concrete_inputs;
  OpInputsTable op_inputs;
};

// Appends the rows of `event`, which has event args, and returns the index of its EventArgs row.
std::int32_t append_event_args(const RawEvent& event, Trace& trace, EventArgsInterners& interners);

}  // namespace stepscope::kineto
