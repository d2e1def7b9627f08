#include "importers/kineto/pipeline.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "importers/kineto/event_parser.h"
#include "importers/kineto/fast_event_parser.h"

namespace stepscope::kineto {

namespace {

constexpr std::size_t kBatchBytes = 512 << 10;
// Batches split but not yet built: room for the threads to split and parse ahead of the
// builder. 8 took 5 % off the load of a 1 GiB trace against 4; 16 only touched more memory.
constexpr std::size_t kMaxBatchesInFlight = 8;

// A batch after parsing: events whose strings point into `text` or `arena`, and the first
// error, if any, which the builder reports when it reaches this batch in file order.
struct ParsedBatch {
  std::uint64_t sequence = 0;
  EventBatch text;
  std::string arena;
  std::vector<RawEvent> events;
  std::optional<Error> error;
};

// Strings simdjson unescaped live in its parser's buffer, which the next event overwrites;
// copy those next to the batch. Strings the fast parser read (none needs unescaping), number
// literals and raw arrays already point into the batch's text, which lives as long as the batch
// (a mapped input's text lives as long as the import).
void keep_strings(RawEvent& event, std::string& arena, std::string_view batch_text) {
  const auto keep = [&arena, batch_text](std::string_view& text) {
    const bool inside = !text.empty() && text.data() >= batch_text.data() &&
                        text.data() + text.size() <= batch_text.data() + batch_text.size();
    if (text.empty() || inside) return;
    const std::size_t at = arena.size();
    arena.append(text);
    text = std::string_view(arena.data() + at, text.size());
  };
  keep(event.name);
  keep(event.category);
  if (!event.pid.is_number) keep(event.pid.text);
  if (!event.tid.is_number) keep(event.tid.text);
  keep(event.collective_name);
  keep(event.dtype);
  keep(event.process_group_name);
  keep(event.metadata_name);
  keep(event.ts_literal);
  keep(event.dur_literal);
}

void parse_into(EventParser& parser, ParsedBatch& batch) {
  const std::string_view text = batch.text.padded();
  // Unescaped strings are never longer than their JSON text, so the arena never reallocates.
  batch.arena.reserve(text.size());
  batch.events.resize(batch.text.events.size());
  for (std::size_t i = 0; i < batch.text.events.size(); ++i) {
    const EventSlice& slice = batch.text.events[i];
    Status status = parser.parse(text.data(), slice, text.size() - slice.offset, batch.events[i]);
    if (!status) {
      batch.error = std::move(status).error();
      batch.events.resize(i);
      return;
    }
    keep_strings(batch.events[i], batch.arena, text);
  }
}

Status build(TraceBuilder& builder, const RawEvent& event) {
  Status status = builder.add(event);
  if (!status) {
    Error error = std::move(status).error();
    error.byte_offset = event.file_offset;
    return error;
  }
  return Done{};
}

// Parses and builds each event of a mapped input where the splitter reaches it: the fast parser
// finds the event's end itself, so the bracket scan runs only over the events it declines.
class BuildingReader final : public InPlaceReader {
 public:
  BuildingReader(EventParser& parser, TraceBuilder& builder) : parser_(parser), builder_(builder) {}

  Result<std::size_t> read_at(const char* text, const char* end,
                              std::uint64_t file_offset) override {
    std::construct_at(&event_);  // in place: no temporary copied over it
    const std::size_t length = fast_parse_event_at(text, end, event_, &key_orders_);
    if (length == 0) return std::size_t{0};
    event_.file_offset = file_offset;
    event_.length = length;
    STEPSCOPE_TRY(build(builder_, event_));
    return length;
  }
  Status read_measured(const char* text, const EventSlice& slice, std::size_t capacity) override {
    STEPSCOPE_TRY(parser_.parse(text, slice, capacity, event_));
    return build(builder_, event_);
  }

 private:
  EventParser& parser_;
  TraceBuilder& builder_;
  RawEvent event_;
  LearnedKeyOrders key_orders_;  // kept from event to event: writers repeat their key order
};

// Batches flow split -> parse -> build, on as many threads as there are cores and no more: any
// thread splits the next batch when the splitter is free, parses what is waiting, and one of
// them (the caller) builds in file order. A thread of its own for the splitter made three busy
// threads on two cores, and the builder and the parser then waited for a splitter the scheduler
// had set aside (about 10 % of the import with a core idle).
class BatchFlow {
 public:
  explicit BatchFlow(EventSplitter& splitter) : splitter_(splitter) {}

  // A parsing thread: splits or parses until nothing is left, or the flow is cancelled.
  void work(EventParser& parser) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (cancelled_) return;
      // Splitting first while little is queued: it is the one stage that cannot be shared.
      if (to_parse_.size() < 2 && claim_splitter()) {
        split_one(lock);
      } else if (!to_parse_.empty()) {
        parse_one(lock, parser);
      } else if (splitting_done_) {
        return;
      } else {
        changed_.wait(lock);
      }
    }
  }

  // The building thread: the next batch in file order, or nullptr at the end. While it is not
  // ready, this thread parses the oldest waiting batch, or splits the next one.
  std::unique_ptr<ParsedBatch> next_in_order(EventParser& parser) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (done_.count(next_) > 0) break;
      if (splitting_done_ && next_ >= total_batches_) return nullptr;
      if (!to_parse_.empty()) {
        parse_one(lock, parser);
      } else if (claim_splitter()) {
        split_one(lock);
      } else {
        changed_.wait(lock);
      }
    }
    auto found = done_.find(next_);
    auto batch = std::move(found->second);
    done_.erase(found);
    ++next_;
    --in_flight_;
    changed_.notify_all();  // room to split
    return batch;
  }

  // Spent batches are reused: their buffers are already paged in.
  void recycle(std::unique_ptr<ParsedBatch> batch) {
    batch->error.reset();
    batch->arena.clear();
    std::lock_guard lock(mutex_);
    spare_.push_back(std::move(batch));
  }
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  std::optional<Error> split_error() {
    std::lock_guard lock(mutex_);
    return split_error_;
  }

 private:
  // With the lock held: takes the splitter when it is free and there is room for a batch.
  bool claim_splitter() {
    if (splitting_ || splitting_done_ || cancelled_ || in_flight_ >= kMaxBatchesInFlight) {
      return false;
    }
    splitting_ = true;
    return true;
  }

  // Splits one batch with the lock released; the splitter is this thread's until it returns.
  void split_one(std::unique_lock<std::mutex>& lock) {
    std::unique_ptr<ParsedBatch> batch;
    if (spare_.empty()) {
      batch = std::make_unique<ParsedBatch>();
    } else {
      batch = std::move(spare_.back());
      spare_.pop_back();
    }
    lock.unlock();
    Result<bool> more = splitter_.next(batch->text, kBatchBytes);
    lock.lock();
    splitting_ = false;
    // The events cut out before a splitter error are parsed and built first: an error among
    // them comes earlier in the file.
    if ((more && *more) || (!more && !batch->text.events.empty())) {
      batch->sequence = sequence_++;
      ++in_flight_;
      to_parse_.push_back(std::move(batch));
    } else {
      spare_.push_back(std::move(batch));
    }
    if (!more || !*more) {
      if (!more) split_error_ = std::move(more).error();
      splitting_done_ = true;
      total_batches_ = sequence_;
    }
    changed_.notify_all();
  }

  // Parses the oldest waiting batch with the lock released.
  void parse_one(std::unique_lock<std::mutex>& lock, EventParser& parser) {
    std::unique_ptr<ParsedBatch> batch = std::move(to_parse_.front());
    to_parse_.pop_front();
    lock.unlock();
    parse_into(parser, *batch);
    lock.lock();
    const std::uint64_t sequence = batch->sequence;
    done_.emplace(sequence, std::move(batch));
    changed_.notify_all();
  }

  EventSplitter& splitter_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<ParsedBatch>> to_parse_;
  std::map<std::uint64_t, std::unique_ptr<ParsedBatch>> done_;
  std::vector<std::unique_ptr<ParsedBatch>> spare_;
  std::size_t in_flight_ = 0;
  std::uint64_t sequence_ = 0;  // of the next batch split
  std::uint64_t next_ = 0;      // of the next batch built
  std::uint64_t total_batches_ = 0;
  bool splitting_ = false;
  bool splitting_done_ = false;
  bool cancelled_ = false;
  std::optional<Error> split_error_;
};

}  // namespace

Status run_sequential(EventSplitter& splitter, TraceBuilder& builder, const ProgressTick& tick) {
  EventParser parser;
  BuildingReader reader(parser, builder);
  splitter.read_in_place_with(&reader);  // a mapped input's batches then come back empty
  EventBatch batch;
  RawEvent event;
  for (;;) {
    Result<bool> more = splitter.next(batch, kBatchBytes);
    if (more && !*more) {
      splitter.done_with_all();
      return Done{};
    }
    // After a splitter error too: the events before it come first.
    const std::string_view text = batch.padded();
    for (const EventSlice& slice : batch.events) {
      STEPSCOPE_TRY(parser.parse(text.data(), slice, text.size() - slice.offset, event));
      STEPSCOPE_TRY(build(builder, event));
    }
    if (!more) return std::move(more).error();
    splitter.done_with(batch);
    if (tick) tick();
  }
}

Status run_parallel(EventSplitter& splitter, TraceBuilder& builder, unsigned parse_workers,
                    const ProgressTick& tick) {
  BatchFlow flow(splitter);
  std::vector<std::thread> parsing;
  for (unsigned i = 0; i < std::max(parse_workers, 1U); ++i) {
    parsing.emplace_back([&flow] {
      EventParser parser;
      flow.work(parser);
    });
  }
  Status status = Done{};
  EventParser parser;
  while (std::unique_ptr<ParsedBatch> batch = flow.next_in_order(parser)) {
    for (const RawEvent& event : batch->events) {
      status = build(builder, event);
      if (!status) break;
    }
    if (status && batch->error) status = *batch->error;
    if (!status) break;
    // Only this thread tells the splitter: in place, the splitter itself never touches the
    // source, so the other threads' splitting does not race with it.
    splitter.done_with(batch->text);
    flow.recycle(std::move(batch));
    if (tick) tick();
  }
  flow.cancel();
  for (std::thread& worker : parsing) worker.join();
  splitter.done_with_all();
  if (!status) return status;
  if (std::optional<Error> error = flow.split_error()) return *error;
  return Done{};
}

}  // namespace stepscope::kineto
