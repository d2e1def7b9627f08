#include "importers/kineto/read_in_parts.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <thread>

#include "importers/kineto/byte_scan.h"
#include "importers/kineto/pipeline.h"

namespace stepscope::kineto {

namespace {

// One run of consecutive chunks, read in order by one splitter and builder: the first part is
// the caller's, from the start of the document; the others continue the part before them.
struct Part {
  std::size_t first_chunk = 0;
  std::size_t next_chunk = 0;  // the next chunk its reader will read, if still its own
  std::size_t end_chunk = 0;   // one past its last chunk; lowered when another reader takes some
  EventSplitter* splitter = nullptr;
  TraceBuilder* builder = nullptr;
  std::unique_ptr<EventSplitter> own_splitter;
  std::unique_ptr<Trace> own_trace;
  std::unique_ptr<TraceBuilder> own_builder;
  Status status = Done{};

  // Its reading stopped exactly at the start of chunk end_chunk, which proves an event starts
  // there: its splitter is left at the stop only when another reader had the rest.
  [[nodiscard]] bool ended_at_cut() const { return status && splitter->reached_stop(); }
};

class PartBoard {
 public:
  PartBoard(io::ByteSource& source, const PartPlan& plan, std::size_t expected_events)
      : source_(source), plan_(plan), expected_events_(expected_events) {}

  // The first part (chunks before the second reader's) and the second (the rest), each with
  // its first chunk claimed.
  Part& add_first(EventSplitter& splitter, TraceBuilder& builder) {
    auto part = std::make_unique<Part>();
    part->next_chunk = 1;
    part->end_chunk = plan_.second_from;
    part->splitter = &splitter;
    part->builder = &builder;
    parts_.push_back(std::move(part));
    return *parts_.front();
  }
  Part& add_second() { return *add_later(plan_.second_from, chunks()); }

  [[nodiscard]] std::size_t chunks() const { return plan_.cuts.size() + 1; }
  // Where chunk `chunk` starts (from 1 to chunks() - 1).
  [[nodiscard]] std::uint64_t start_of(std::size_t chunk) const { return plan_.cuts[chunk - 1]; }

  // The next chunk of `part` for its reader, or nothing once another reader has the rest.
  std::optional<std::size_t> claim_next(Part& part) {
    std::lock_guard lock(mutex_);
    if (part.next_chunk >= part.end_chunk) return std::nullopt;
    return part.next_chunk++;
  }

  // A new part for a reader with nothing left: the later half of the chunks not yet reached in
  // the part that has most of them, its first chunk claimed; nothing when none is left or a
  // reading failed.
  Part* take_from_other() {
    std::lock_guard lock(mutex_);
    if (failed_) return nullptr;
    Part* most = nullptr;
    for (const std::unique_ptr<Part>& part : parts_) {
      if (most == nullptr ||
          part->end_chunk - part->next_chunk > most->end_chunk - most->next_chunk) {
        most = part.get();
      }
    }
    const std::size_t left = most->end_chunk - most->next_chunk;
    if (left == 0) return nullptr;
    const std::size_t first = most->next_chunk + left / 2;
    const std::size_t end = most->end_chunk;
    most->end_chunk = first;
    return add_later(first, end);
  }

  // `part` has read to the end of the document.
  void close(Part& part) {
    std::lock_guard lock(mutex_);
    part.end_chunk = part.next_chunk;
  }

  void fail() {
    std::lock_guard lock(mutex_);
    failed_ = true;
  }

  // Once both readers are done.
  [[nodiscard]] std::vector<Part*> in_file_order() const {
    std::vector<Part*> parts;
    for (const std::unique_ptr<Part>& part : parts_) parts.push_back(part.get());
    std::sort(parts.begin(), parts.end(),
              [](const Part* a, const Part* b) { return a->first_chunk < b->first_chunk; });
    return parts;
  }

 private:
  Part* add_later(std::size_t first, std::size_t end) {
    auto part = std::make_unique<Part>();
    part->first_chunk = first;
    part->next_chunk = first + 1;
    part->end_chunk = end;
    part->own_splitter = std::make_unique<EventSplitter>(source_);
    part->own_splitter->start_at_event(start_of(first));
    part->own_trace = std::make_unique<Trace>();
    part->own_builder = std::make_unique<TraceBuilder>(*part->own_trace);
    part->own_builder->reserve(share_of_events(first, end), true);
    part->own_builder->continue_earlier_part();
    part->splitter = part->own_splitter.get();
    part->builder = part->own_builder.get();
    parts_.push_back(std::move(part));
    return parts_.back().get();
  }

  // The events a part of chunks [first, end) may hold, by its share of the bytes, with room.
  [[nodiscard]] std::size_t share_of_events(std::size_t first, std::size_t end) const {
    const std::uint64_t total = std::max<std::uint64_t>(source_.mapped().size(), 1);
    const std::uint64_t to = end < chunks() ? start_of(end) : total;
    const double share = static_cast<double>(to - start_of(first)) / static_cast<double>(total);
    return static_cast<std::size_t>(share * 1.25 * static_cast<double>(expected_events_)) + 1024;
  }

  io::ByteSource& source_;
  const PartPlan& plan_;
  std::size_t expected_events_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Part>> parts_;
  bool failed_ = false;
};

// Reads `part`'s chunks in order, each up to the next cut, until another reader has the rest,
// the document ends, or an error.
Status read_part(Part& part, PartBoard& board, const ProgressTick& tick) {
  std::size_t chunk = part.next_chunk - 1;  // claimed when the part was made
  for (;;) {
    if (chunk + 1 < board.chunks()) part.splitter->stop_at_event(board.start_of(chunk + 1));
    STEPSCOPE_TRY(run_sequential(*part.splitter, *part.builder, tick));
    // Past a cut that is no event start, or the last chunk: read to the end of the document,
    // and the chunks it still held are no one's to read.
    if (!part.splitter->reached_stop()) {
      board.close(part);
      return Done{};
    }
    const std::optional<std::size_t> next = board.claim_next(part);
    if (!next) return Done{};
    part.splitter->resume_after_stop();
    chunk = *next;
  }
}

// A reader: its part, then parts taken from the other reader, until none is left. Running out
// of memory fails its part only, off the calling thread (the first part then reads on alone, and
// reports it if it runs out too), instead of ending the process from an uncaught exception; on
// the calling thread the exception goes on to the caller, and the other reader takes no more.
void read_parts(Part* part, PartBoard& board, const ProgressTick& tick, bool calling_thread) {
  while (part != nullptr) {
    try {
      part->status = read_part(*part, board, tick);
    } catch (const std::bad_alloc&) {
      board.fail();
      if (calling_thread) throw;
      part->status = make_error(ErrorKind::kLimitExceeded, "out of memory reading a part");
    } catch (...) {
      board.fail();
      throw;
    }
    if (!part->status) {
      board.fail();
      return;
    }
    part = board.take_from_other();
  }
}

void read_as_scheduled(PartBoard& board, Part& first, Part& second, PartSchedule schedule,
                       const ProgressTick& tick) {
  switch (schedule) {
    case PartSchedule::kTwoThreads: {
      // A jthread: should this thread throw, the other is joined, not abandoned.
      std::jthread other([&board, &second] { read_parts(&second, board, {}, false); });
      read_parts(&first, board, tick, true);
      return;
    }
    case PartSchedule::kFirstThenSecond:
      read_parts(&first, board, tick, true);
      read_parts(&second, board, {}, false);
      return;
    case PartSchedule::kSecondThenFirst:
      read_parts(&second, board, {}, false);
      read_parts(&first, board, tick, true);
      return;
  }
}

// The parts one reading would have read: from the first, each that starts where the one before
// stopped exactly.
std::size_t parts_used(const std::vector<Part*>& parts) {
  std::size_t used = 1;
  while (used < parts.size() && parts[used - 1]->ended_at_cut()) ++used;
  return used;
}

// Absorbs parts [1, used) into the first, in file order: each part's own columns then move
// into the first part's whole (a part that had absorbed another would be several mappings,
// which the kernel does not move as one: its values would be copied).
void absorb_parts(const std::vector<Part*>& parts, std::size_t used) {
  constexpr unsigned kWorkers = 2;
  TraceBuilder& builder = *parts.front()->builder;
  for (std::size_t i = 1; i < used; ++i) builder.absorb(*parts[i]->builder, kWorkers);
  for (std::size_t i = 1; i < used; ++i) {
    parts.front()->splitter->append_later_part(*parts[i]->splitter);
  }
}

// Cuts strictly ascending inside the text, and the second reader's chunk among them.
bool is_usable(const PartPlan& plan, std::size_t text_size) {
  const auto& cuts = plan.cuts;
  return !cuts.empty() && plan.second_from >= 1 && plan.second_from <= cuts.size() &&
         cuts.back() < text_size &&
         std::adjacent_find(cuts.begin(), cuts.end(), std::greater_equal<>()) == cuts.end();
}

}  // namespace

std::optional<std::uint64_t> event_start_after(std::string_view mapped, std::uint64_t at) {
  constexpr std::size_t kSearch = 1 << 20;  // Kineto writes one event per few hundred bytes
  if (at >= mapped.size()) return std::nullopt;
  const std::size_t to = std::min<std::size_t>(mapped.size(), at + kSearch);
  for (std::size_t brace = mapped.find('{', at); brace < to; brace = mapped.find('{', brace + 1)) {
    std::size_t before = brace;
    while (before > 0 && is_json_space(mapped[before - 1])) --before;
    if (before == 0 || mapped[before - 1] != ',') continue;
    --before;
    while (before > 0 && is_json_space(mapped[before - 1])) --before;
    if (before > 0 && mapped[before - 1] == '}') return brace;
  }
  return std::nullopt;
}

std::optional<PartPlan> plan_parts(std::string_view mapped, std::uint64_t chunk_bytes) {
  PartPlan plan;
  const std::uint64_t chunks = std::max<std::uint64_t>(mapped.size() / chunk_bytes, 2);
  for (std::uint64_t k = 1; k < chunks; ++k) {
    const std::optional<std::uint64_t> cut = event_start_after(mapped, mapped.size() * k / chunks);
    if (cut && (plan.cuts.empty() || *cut > plan.cuts.back())) plan.cuts.push_back(*cut);
  }
  if (plan.cuts.empty()) return std::nullopt;
  plan.second_from = (plan.cuts.size() + 1) / 2;
  return plan;
}

Status run_in_parts(EventSplitter& splitter, TraceBuilder& builder, io::ByteSource& source,
                    const PartPlan& plan, std::size_t expected_events, const ProgressTick& tick) {
  // Only a mapping can be entered in the middle.
  if (source.mapped().empty() || !is_usable(plan, source.mapped().size())) {
    return run_sequential(splitter, builder, tick);
  }
  PartBoard board(source, plan, expected_events);
  Part& first = board.add_first(splitter, builder);
  Part& second = board.add_second();
  read_as_scheduled(board, first, second, plan.schedule, tick);
  if (!first.status) return first.status;
  const std::vector<Part*> parts = board.in_file_order();
  const std::size_t used = parts_used(parts);
  if (used == 1) return Done{};  // the first part read to the end itself
  for (std::size_t i = 1; i < used; ++i) {
    if (!parts[i]->status) {
      // Its error may be no error of one reading (a cut inside a string): read on to see.
      splitter.resume_after_stop();
      return run_sequential(splitter, builder, tick);
    }
  }
  absorb_parts(parts, used);
  return Done{};
}

std::optional<std::uint64_t> split_point(std::string_view mapped, std::uint64_t from) {
  if (from >= mapped.size()) return std::nullopt;
  return event_start_after(mapped, from + (mapped.size() - from) / 2);
}

}  // namespace stepscope::kineto
