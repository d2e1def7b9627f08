#include "importers/kineto/read_plan.h"

#include <algorithm>
#include <string_view>

#include "importers/kineto/inflating_read.h"
#include "importers/kineto/pipeline.h"

namespace stepscope::kineto {

namespace {

// Two threads pay off from a few megabytes of JSON (measured on 2 cores: 15 MB of JSON 60 -> 48
// ms, control's 35 MB 103 -> 74 ms, 1.8 MB the same either way).
constexpr std::uint64_t kParallelFromBytes = 8ULL << 20;

// A mapped trace this large is read in parts on two threads (read_in_parts.h), each part read as
// one thread reads a trace, with nothing handed between threads per event (with the pipeline's
// hand-over of parsed events, two threads spend about a tenth more CPU than one). Smaller ones,
// and streams, which cannot be entered in the middle, take the pipeline.
constexpr std::uint64_t kTwoPartsFromBytes = 32ULL << 20;

std::uint64_t expected_decompressed_bytes(const io::ByteSource& source) {
  constexpr std::uint64_t kCompressionRatio = 12;
  return source.raw_bytes_total() * (source.is_compressed() ? kCompressionRatio : 1);
}

unsigned effective_threads(const LoadOptions& options, const io::ByteSource& source) {
  if (options.threads != 0) return options.threads;
  return expected_decompressed_bytes(source) >= kParallelFromBytes ? 2 : 1;
}

// An upper estimate: profiler events take at least ~100 bytes of JSON, and gzip compresses trace
// JSON about ten times. Capped, for sparse or huge files: the columns grow as needed past the cap
// (and TraceBuilder::reserve asks for less under an address-space limit).
std::size_t expected_events(const io::ByteSource& source) {
  constexpr std::uint64_t kMinEventBytes = 100;
  constexpr std::uint64_t kMaxReservedEvents = 1U << 26;
  return static_cast<std::size_t>(std::min<std::uint64_t>(
      expected_decompressed_bytes(source) / kMinEventBytes + 1024, kMaxReservedEvents));
}

}  // namespace

ReadPlan plan_reading(const io::ByteSource& source, const LoadOptions& options, bool inflating) {
  ReadPlan plan;
  plan.threads = effective_threads(options, source);
  plan.expected_events = expected_events(source);
  if (inflating) {
    plan.schedule = ReadSchedule::kInflateAhead;
    return plan;
  }
  const std::string_view mapped = source.mapped();
  if (plan.threads >= 2 && mapped.size() >= kTwoPartsFromBytes) {
    plan.parts = plan_parts(mapped);
    if (plan.parts) {
      plan.schedule = ReadSchedule::kInParts;
      return plan;
    }
  }
  plan.schedule = plan.threads >= 2 ? ReadSchedule::kPipelined : ReadSchedule::kSequential;
  return plan;
}

Status read_as_planned(const ReadPlan& plan, EventSplitter& splitter, TraceBuilder& builder,
                       io::ByteSource& source, io::InflatingBuffer* inflating,
                       const ProgressTick& tick) {
  // A trace read in parts: their columns are joined by moving pages, which need their own.
  const bool movable =
      plan.schedule == ReadSchedule::kInflateAhead || plan.schedule == ReadSchedule::kInParts;
  builder.reserve(plan.expected_events, movable);
  switch (plan.schedule) {
    case ReadSchedule::kInflateAhead:
      return run_inflating_ahead(splitter, builder, *inflating, plan.expected_events, tick);
    case ReadSchedule::kInParts:
      return run_in_parts(splitter, builder, source, *plan.parts, plan.expected_events, tick);
    case ReadSchedule::kPipelined:
      // Both threads split (and inflate) or parse as work comes, and this one builds.
      return run_parallel(splitter, builder, plan.threads - 1, tick);
    case ReadSchedule::kSequential:
      break;
  }
  return run_sequential(splitter, builder, tick);
}

}  // namespace stepscope::kineto
