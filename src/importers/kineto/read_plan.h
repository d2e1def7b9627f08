// How one Kineto trace is read: the schedule (sequential, pipelined on two threads, inflated
// ahead, or in parts) chosen once from the source and the options, behind one entry point.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/progress_tick.h"
#include "importers/kineto/read_in_parts.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"
#include "io/inflate_ahead.h"
#include "stepscope/error.h"
#include "stepscope/load.h"

namespace stepscope::kineto {

enum class ReadSchedule : std::uint8_t {
  kSequential,    // split, parse and build on the calling thread
  kPipelined,     // splitting and parsing shared with other threads, built here (pipeline.h)
  kInflateAhead,  // a .json.gz inflated on one thread while this one reads behind it
  kInParts,       // a mapped trace read in two parts at once (read_in_parts.h)
};

struct ReadPlan {
  ReadSchedule schedule = ReadSchedule::kSequential;
  unsigned threads = 1;
  std::size_t expected_events = 0;  // columns are reserved for about this many
  std::optional<PartPlan> parts;    // kInParts
};

// A .json.gz at least this large (by its gzip trailer) is inflated ahead with two threads, up to
// kInflateAheadUpToBytes; larger ones are streamed, so that the text is never held whole.
inline constexpr std::uint64_t kInflateAheadFromBytes = 32ULL << 20;
inline constexpr std::uint64_t kInflateAheadUpToBytes = 256ULL << 20;

// The plan for `source`; `inflating`: the source is a .json.gz being inflated ahead.
ReadPlan plan_reading(const io::ByteSource& source, const LoadOptions& options, bool inflating);

// Reads `source` into `builder` as planned. `inflating` is the source when the plan is
// kInflateAhead, else null.
Status read_as_planned(const ReadPlan& plan, EventSplitter& splitter, TraceBuilder& builder,
                       io::ByteSource& source, io::InflatingBuffer* inflating,
                       const ProgressTick& tick);

}  // namespace stepscope::kineto
