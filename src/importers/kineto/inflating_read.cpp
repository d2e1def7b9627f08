#include "importers/kineto/inflating_read.h"

#include <atomic>
#include <memory>
#include <new>
#include <optional>
#include <thread>

#include "importers/kineto/pipeline.h"
#include "importers/kineto/read_in_parts.h"
#include "io/byte_source.h"

namespace stepscope::kineto {

namespace {

// The later part of a trace read in two: its own builder, continuing the earlier part's.
struct LaterPart {
  explicit LaterPart(std::size_t expected_events) : builder(trace) {
    builder.reserve(expected_events / 2 + expected_events / 8, true);
    builder.continue_earlier_part();
  }
  Trace trace;
  TraceBuilder builder;
  Status status = Done{};
};

// The later part, read on a thread of its own: running out of memory there fails that part
// only (the earlier part then reads on alone, and reports it if it runs out too), instead of
// ending the process from a thread's uncaught exception.
Status read_later_part(EventSplitter& splitter, TraceBuilder& builder) {
  try {
    return run_sequential(splitter, builder, {});
  } catch (const std::bad_alloc&) {
    return make_error(ErrorKind::kLimitExceeded, "out of memory reading the later part");
  }
}

// The earlier part has been read (`status`): the later part joins it when the earlier part
// stopped where the later one started; otherwise the earlier part's reading is the reading.
Status join_parts(EventSplitter& splitter, TraceBuilder& builder, Status status,
                  const EventSplitter* later_splitter, LaterPart& later, const ProgressTick& tick) {
  if (!status || !splitter.reached_stop() || later_splitter == nullptr) return status;
  if (!later.status) {
    // Its error may be no error of one reading (a cut inside a string): read on to see.
    splitter.resume_after_stop();
    return run_sequential(splitter, builder, tick);
  }
  builder.absorb(later.builder, 2);
  splitter.append_later_part(*later_splitter);
  return Done{};
}

}  // namespace

Status run_inflating_ahead(EventSplitter& splitter, TraceBuilder& builder,
                           io::InflatingBuffer& buffer, std::size_t expected_events,
                           const ProgressTick& tick) {
  // Less than this left to read when the text is whole: the reader finishes it alone.
  constexpr std::uint64_t kSmallestLaterPart = 4 << 20;
  LaterPart later(expected_events);
  std::unique_ptr<io::ByteSource> whole_text;
  std::unique_ptr<EventSplitter> later_splitter;
  std::atomic<bool> earlier_failed = false;
  std::jthread inflating([&] {
    std::optional<std::uint64_t> later_from;
    const bool inflated =
        buffer.inflate_all([&later_from](std::string_view text, std::uint64_t unseen) {
          if (text.size() - unseen >= kSmallestLaterPart) later_from = split_point(text, unseen);
          return later_from;
        });
    if (!inflated || !later_from || earlier_failed) return;
    const std::string_view text = buffer.text();
    whole_text = io::padded_memory_byte_source(text.data(), text.size());
    later_splitter = std::make_unique<EventSplitter>(*whole_text);
    later_splitter->start_at_event(*later_from);
    later.status = read_later_part(*later_splitter, later.builder);
  });
  Status status = run_sequential(splitter, builder, tick);
  if (!status) earlier_failed = true;
  inflating.join();
  // Corrupt compressed data is the error to report, whatever the text it made looked like
  // (a stream reports it as soon as it inflates that far).
  if (std::optional<Error> corrupt = buffer.inflation_error(); !status && corrupt) return *corrupt;
  return join_parts(splitter, builder, std::move(status), later_splitter.get(), later, tick);
}

}  // namespace stepscope::kineto
