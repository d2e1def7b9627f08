// A mapped trace read in parts on two threads. The event array is cut into chunks at guessed
// event starts; one thread reads from the start of the document, the other from a chunk near
// the middle, each claiming the next chunk of its run as it reaches it. A thread that has no
// chunk left takes the later half of the chunks the other has not reached and reads them as a
// part of its own, so that neither waits while the other reads on (the host can slow either
// thread for a while). The parts are then absorbed in file order into the first part's builder.
//
// A part is used only when the part before it stopped exactly where it starts, which proves
// that an event starts there; a guess that is no event start makes the reading before it read
// on to the end. If a used part fails, the first part reads on to the end itself: the trace and
// the first error are always those of one reading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "importers/kineto/event_splitter.h"
#include "importers/kineto/progress_tick.h"
#include "importers/kineto/trace_builder.h"
#include "io/byte_source.h"
#include "stepscope/error.h"

namespace stepscope::kineto {

// The order the two readers run in: at once on two threads, or (for tests, which need every
// outcome of the race) one after the other on the calling thread.
enum class PartSchedule : std::uint8_t { kTwoThreads, kFirstThenSecond, kSecondThenFirst };

struct PartPlan {
  // Where chunks after the first start, ascending, each the guessed '{' of an event.
  std::vector<std::uint64_t> cuts;
  // The chunk the second reader starts at: 1 to cuts.size().
  std::size_t second_from = 1;
  PartSchedule schedule = PartSchedule::kTwoThreads;
};

// Chunks of about this many bytes: a reader's share then evens out to within half a chunk (by
// arithmetic about 1 ms of reading here). Measured on a 1 GiB trace, two threads: 8 MiB chunks left
// one reader alone for up to 6 ms at the end, and took 10 ms longer end to end than 2 MiB; 1 MiB
// chunks were slower again (more parts to join).
inline constexpr std::uint64_t kPartChunkBytes = 2ULL << 20;

// The plan for a mapped event array: a cut near every kPartChunkBytes (fewer where no event
// start is near), the second reader from the middle cut; nothing without a cut.
std::optional<PartPlan> plan_parts(std::string_view mapped,
                                   std::uint64_t chunk_bytes = kPartChunkBytes);

// The '{' of an event at or after `at` (after `}`, `,` and whitespace), searched up to a
// megabyte on; nothing when none is near.
std::optional<std::uint64_t> event_start_after(std::string_view mapped, std::uint64_t at);

// Where a mapped event array can likely be cut in two: the '{' of an element near the middle of
// [from, end) (after `}`, `,` and whitespace), or nothing when none is near. A guess that the
// reading itself verifies; a string that holds such bytes only costs the parallel reading.
std::optional<std::uint64_t> split_point(std::string_view mapped, std::uint64_t from = 0);

// Reads `source` (mapped) as planned into `builder`, whose splitter is `splitter`.
// `expected_events`: the whole trace's, from which each part reserves its share.
Status run_in_parts(EventSplitter& splitter, TraceBuilder& builder, io::ByteSource& source,
                    const PartPlan& plan, std::size_t expected_events, const ProgressTick& tick);

}  // namespace stepscope::kineto
