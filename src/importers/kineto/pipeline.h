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

// A mapped trace read as two parts at once, each split, parsed and built on its own thread as
// in run_sequential, the later part from `split_at` (an event start that split_point() found).
// The earlier part's builder then absorbs the later part's trace. If the earlier part's
// splitter shows that no event starts at `split_at`, or the later part fails, the earlier part
// reads on to the end itself: the trace and the first error are always those of one reading.
Status run_in_two_parts(EventSplitter& splitter, TraceBuilder& builder, io::ByteSource& source,
                        std::uint64_t split_at, std::size_t expected_events,
                        const ProgressTick& tick);

// A .json.gz inflated ahead (io/inflate_ahead.h): this thread reads the text in place as it
// grows, while another inflates it; that one then reads a later part from an event start it
// chooses past what this thread has been shown, and this thread absorbs it as above.
Status run_inflating_ahead(EventSplitter& splitter, TraceBuilder& builder,
                           io::InflatingBuffer& buffer, std::size_t expected_events,
                           const ProgressTick& tick);

// Where a mapped event array can likely be cut in two: the '{' of an element near the middle of
// [from, end) (after `}`, `,` and whitespace), or nothing when none is near. A guess that the
// reading itself verifies; a string that holds such bytes only costs the parallel reading.
std::optional<std::uint64_t> split_point(std::string_view mapped, std::uint64_t from = 0);

}  // namespace stepscope::kineto
