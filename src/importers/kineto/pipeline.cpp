#include "importers/kineto/pipeline.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "importers/kineto/event_parser.h"

namespace stepscope::kineto {

namespace {

constexpr std::size_t kBatchBytes = 512 << 10;
// Room for the builder to parse ahead while the batch it needs next is still being parsed: with
// 4 in flight both cores idled 15 % of the import (the builder waiting, nothing left to parse);
// 8 took 5 % off the load of a 1 GiB trace, and 16 only touched more memory.
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
// literals and raw arrays already point into the batch's text, which lives as long as the batch.
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
  // Unescaped strings are never longer than their JSON text, so the arena never reallocates.
  batch.arena.reserve(batch.text.text.size());
  batch.events.resize(batch.text.events.size());
  for (std::size_t i = 0; i < batch.text.events.size(); ++i) {
    const EventSlice& slice = batch.text.events[i];
    const std::size_t capacity = batch.text.text.size() - slice.offset;
    Status status = parser.parse(batch.text.text.data(), slice, capacity, batch.events[i]);
    if (!status) {
      batch.error = std::move(status).error();
      batch.events.resize(i);
      return;
    }
    keep_strings(batch.events[i], batch.arena,
                 std::string_view(batch.text.text.data(), batch.text.text.size()));
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

// Batches flow split -> parse -> build. The splitting thread stops when too many are in flight.
class BatchFlow {
 public:
  // Splitter side: waits for room; false once the flow is cancelled.
  bool submit(std::unique_ptr<ParsedBatch> batch) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [this] { return in_flight_ < kMaxBatchesInFlight || cancelled_; });
    if (cancelled_) return false;
    ++in_flight_;
    to_parse_.push_back(std::move(batch));
    work_.notify_one();
    parsed_.notify_all();  // the builder parses too while it waits (next_in_order)
    return true;
  }
  void finish_splitting(std::optional<Error> error, std::uint64_t batches) {
    std::lock_guard lock(mutex_);
    split_error_ = std::move(error);
    total_batches_ = batches;
    splitting_done_ = true;
    work_.notify_all();
    parsed_.notify_all();
  }
  // Parser side: nullptr when there is nothing left to parse.
  std::unique_ptr<ParsedBatch> take_for_parsing() {
    std::unique_lock lock(mutex_);
    work_.wait(lock, [this] { return !to_parse_.empty() || splitting_done_ || cancelled_; });
    if (to_parse_.empty()) return nullptr;
    auto batch = std::move(to_parse_.front());
    to_parse_.pop_front();
    return batch;
  }
  void parsed(std::unique_ptr<ParsedBatch> batch) {
    std::lock_guard lock(mutex_);
    const std::uint64_t sequence = batch->sequence;
    done_.emplace(sequence, std::move(batch));
    parsed_.notify_all();
  }
  // Builder side: the next batch in file order, or nullptr at the end. While that batch is not
  // parsed yet, the builder parses waiting batches itself with `parse`, so that no core idles
  // behind the parsing stage (building is the lighter stage: with two threads, parsing would
  // otherwise bound the import).
  template <typename Parse>
  std::unique_ptr<ParsedBatch> next_in_order(Parse&& parse) {
    std::unique_lock lock(mutex_);
    for (;;) {
      if (done_.count(next_) > 0 || (splitting_done_ && next_ >= total_batches_)) break;
      if (to_parse_.empty()) {
        parsed_.wait(lock);
        continue;
      }
      std::unique_ptr<ParsedBatch> batch = std::move(to_parse_.front());
      to_parse_.pop_front();
      lock.unlock();
      parse(*batch);
      lock.lock();
      const std::uint64_t sequence = batch->sequence;
      done_.emplace(sequence, std::move(batch));
    }
    auto found = done_.find(next_);
    if (found == done_.end()) return nullptr;
    auto batch = std::move(found->second);
    done_.erase(found);
    ++next_;
    --in_flight_;
    room_.notify_one();
    return batch;
  }
  // Spent batches are reused: their buffers are already paged in.
  void recycle(std::unique_ptr<ParsedBatch> batch) {
    batch->error.reset();
    batch->arena.clear();
    std::lock_guard lock(mutex_);
    spare_.push_back(std::move(batch));
  }
  std::unique_ptr<ParsedBatch> spare() {
    std::lock_guard lock(mutex_);
    if (spare_.empty()) return std::make_unique<ParsedBatch>();
    auto batch = std::move(spare_.back());
    spare_.pop_back();
    return batch;
  }
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    room_.notify_all();
    work_.notify_all();
  }
  std::optional<Error> split_error() {
    std::lock_guard lock(mutex_);
    return split_error_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable room_;
  std::condition_variable work_;
  std::condition_variable parsed_;
  std::deque<std::unique_ptr<ParsedBatch>> to_parse_;
  std::map<std::uint64_t, std::unique_ptr<ParsedBatch>> done_;
  std::vector<std::unique_ptr<ParsedBatch>> spare_;
  std::size_t in_flight_ = 0;
  std::uint64_t next_ = 0;
  std::uint64_t total_batches_ = 0;
  bool splitting_done_ = false;
  bool cancelled_ = false;
  std::optional<Error> split_error_;
};

void split_all(EventSplitter& splitter, BatchFlow& flow) {
  std::uint64_t sequence = 0;
  for (;;) {
    std::unique_ptr<ParsedBatch> batch = flow.spare();
    Result<bool> more = splitter.next(batch->text, kBatchBytes);
    if (!more) {
      flow.finish_splitting(std::move(more).error(), sequence);
      return;
    }
    if (!*more) break;
    batch->sequence = sequence++;
    if (!flow.submit(std::move(batch))) break;
  }
  flow.finish_splitting(std::nullopt, sequence);
}

void parse_all(BatchFlow& flow) {
  EventParser parser;
  while (std::unique_ptr<ParsedBatch> batch = flow.take_for_parsing()) {
    parse_into(parser, *batch);
    flow.parsed(std::move(batch));
  }
}

}  // namespace

Status run_sequential(EventSplitter& splitter, TraceBuilder& builder, const ProgressTick& tick) {
  EventParser parser;
  EventBatch batch;
  RawEvent event;
  for (;;) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, splitter.next(batch, kBatchBytes));
    if (!more) return Done{};
    for (const EventSlice& slice : batch.events) {
      const std::size_t capacity = batch.text.size() - slice.offset;
      STEPSCOPE_TRY(parser.parse(batch.text.data(), slice, capacity, event));
      STEPSCOPE_TRY(build(builder, event));
    }
    if (tick) tick();
  }
}

Status run_parallel(EventSplitter& splitter, TraceBuilder& builder, unsigned parse_workers,
                    const ProgressTick& tick) {
  BatchFlow flow;
  std::thread splitting([&] { split_all(splitter, flow); });
  std::vector<std::thread> parsing;
  for (unsigned i = 0; i < std::max(parse_workers, 1U); ++i)
    parsing.emplace_back([&] { parse_all(flow); });
  Status status = Done{};
  EventParser parser;
  const auto parse_here = [&parser](ParsedBatch& batch) { parse_into(parser, batch); };
  while (std::unique_ptr<ParsedBatch> batch = flow.next_in_order(parse_here)) {
    for (const RawEvent& event : batch->events) {
      status = build(builder, event);
      if (!status) break;
    }
    if (status && batch->error) status = *batch->error;
    if (!status) break;
    flow.recycle(std::move(batch));
    if (tick) tick();
  }
  flow.cancel();
  splitting.join();
  for (std::thread& worker : parsing) worker.join();
  if (!status) return status;
  if (std::optional<Error> error = flow.split_error()) return *error;
  return Done{};
}

}  // namespace stepscope::kineto
