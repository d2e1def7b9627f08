// How the importer's three stages (split, parse, build) are scheduled. Sequential runs them on
// the calling thread. Parallel runs `parse_workers` threads beside the calling one: each splits
// the next batch when the splitter is free, or parses a waiting batch; the calling thread builds
// in file order, so that the result (and the first error reported) is the same as the
// sequential run's, and splits or parses while the next batch in order is not ready.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"
#include "io/inflate_ahead.h"
#include "stepscope/error.h"

namespace stepscope::kineto {

using ProgressTick = std::function<void()>;

Status run_sequential(EventSplitter& splitter, TraceBuilder& builder, const ProgressTick& tick);
Status run_parallel(EventSplitter& splitter, TraceBuilder& builder, unsigned parse_workers,
                    const ProgressTick& tick);

// A .json.gz inflated ahead (io/inflate_ahead.h): this thread reads the text in place as it
// grows, while another inflates it; that one then reads a later part from an event start it
// chooses past what this thread has been shown, and this thread absorbs it (read_in_parts.h
// reads a mapped trace in parts the same way).
Status run_inflating_ahead(EventSplitter& splitter, TraceBuilder& builder,
                           io::InflatingBuffer& buffer, std::size_t expected_events,
                           const ProgressTick& tick);

// Where a mapped event array can likely be cut in two: the '{' of an element near the middle of
// [from, end) (after `}`, `,` and whitespace), or nothing when none is near. A guess that the
// reading itself verifies; a string that holds such bytes only costs the parallel reading.
std::optional<std::uint64_t> split_point(std::string_view mapped, std::uint64_t from = 0);

}  // namespace stepscope::kineto
