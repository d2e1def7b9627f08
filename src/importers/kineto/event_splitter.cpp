#include "importers/kineto/event_splitter.h"
#include "io/file_format.h"

#include "importers/kineto/byte_scan.h"
#include "importers/kineto/container_scanner.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string_view>

namespace stepscope::kineto {

namespace {

constexpr std::size_t kReadChunk = 4 << 20;
// The first read is small so that parsing starts early (a 4 MiB first read of a .json.gz is
// several milliseconds of inflating with every other thread waiting); reads then double.
constexpr std::size_t kFirstRead = 256 << 10;
constexpr std::size_t kPadding = kEventPadding;  // simdjson reads up to this far past the end
constexpr std::size_t kIncomplete = static_cast<std::size_t>(-1);
constexpr std::size_t kMaxKeysKept = 8;
// A single event larger than this is not a profiler event: refuse it rather than grow forever.
constexpr std::size_t kMaxEventBytes = std::size_t{1} << 30;

constexpr std::size_t kFormatHeadBytes = 16;

std::string describe_byte(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", static_cast<unsigned char>(c));
  return text;
}

}  // namespace

EventSplitter::EventSplitter(io::ByteSource& source) : source_(source) {
  // A text that grows in place is read where it lies as it grows (fill() waits for more).
  if (source.grows()) {
    const std::string_view so_far = source.mapped();
    data_ = so_far.data();
    end_ = so_far.size();
    in_place_ = true;
    return;
  }
  // A mapped file is scanned where it lies, whole: nothing is ever read into a buffer.
  if (const std::string_view whole = source.mapped(); !whole.empty()) {
    data_ = whole.data();
    end_ = whole.size();
    eof_ = true;
    in_place_ = true;
    return;
  }
  // Small plain inputs (tests, fuzzing, tiny traces) get a buffer their size, not 4 MiB.
  constexpr std::size_t kMinChunk = 4096;
  chunk_ = source.is_compressed()
               ? kReadChunk
               : std::clamp<std::size_t>(source.raw_bytes_total() + 1, kMinChunk, kReadChunk);
  next_read_ = std::min(chunk_, kFirstRead);
  capacity_ = chunk_ + kPadding;
  // NOLINTNEXTLINE(cppcoreguidelines-avoid-c-arrays): uninitialised on purpose, see the header
  buffer_ = std::make_unique_for_overwrite<char[]>(capacity_);
  std::memset(buffer_.get(), ' ', kPadding);
  data_ = buffer_.get();
}

Error EventSplitter::error_at(std::size_t position, std::string message, ErrorKind kind) const {
  return make_error(kind, std::move(message), base_offset_ + position);
}

Result<bool> EventSplitter::fill() {
  if (eof_) return false;
  if (in_place_) return wait_for_more();
  if (begin_ > 0) {  // drop consumed bytes
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    base_offset_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  if (capacity_ - kPadding - end_ < chunk_ / 2) {
    if (end_ > kMaxEventBytes) {
      return error_at(0, "a single JSON value is larger than 1 GiB: not a profiler trace event",
                      ErrorKind::kLimitExceeded);
    }
    grow(std::max(capacity_ * 2, end_ + chunk_ + kPadding));
  }
  const std::size_t room = capacity_ - kPadding - end_;
  STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t got,
                             source_.read(buffer_.get() + end_, std::min(room, next_read_)));
  next_read_ = std::min(next_read_ * 2, chunk_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += got;
  std::memset(buffer_.get() + end_, ' ', kPadding);
  return true;
}

Result<bool> EventSplitter::wait_for_more() {
  STEPSCOPE_ASSIGN_OR_RETURN(const io::ByteSource::Growth growth, source_.wait_for_more(end_));
  // Another reader reads the events from there on (pipeline.h, run_inflating_ahead).
  if (growth.handed_over_from) stop_at_event(*growth.handed_over_from);
  eof_ = growth.complete;
  if (growth.size <= end_) return false;
  end_ = static_cast<std::size_t>(growth.size);
  return true;
}

void EventSplitter::grow(std::size_t capacity) {
  auto larger = std::make_unique_for_overwrite<char[]>(capacity);
  std::memcpy(larger.get(), buffer_.get(), end_);
  buffer_ = std::move(larger);
  data_ = buffer_.get();
  capacity_ = capacity;
}

Result<bool> EventSplitter::next_significant_byte() {
  for (;;) {
    // The buffer keeps kPadding readable bytes past end_, as skip_json_space needs.
    begin_ = static_cast<std::size_t>(skip_json_space(data_ + begin_, data_ + end_) - data_);
    if (begin_ < end_) return true;
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, fill());
    if (!more) return false;
  }
}

Result<std::size_t> EventSplitter::scan_string(std::size_t position) const {
  const char* data = data_;
  std::size_t at = position + 1;
  for (;;) {
    const void* found = std::memchr(data + at, '"', end_ - at);
    if (found == nullptr) return kIncomplete;
    const auto quote = static_cast<std::size_t>(static_cast<const char*>(found) - data);
    std::size_t backslashes = 0;
    while (quote - backslashes > position + 1 && data[quote - backslashes - 1] == '\\') {
      ++backslashes;
    }
    if (backslashes % 2 == 0) return quote + 1;
    at = quote + 1;
  }
}

Result<std::size_t> EventSplitter::scan_container(std::size_t position) const {
  bool ascii = false;
  return scan_container(position, ascii);
}

Result<std::size_t> EventSplitter::scan_container(std::size_t position, bool& ascii) const {
  const std::size_t end = find_container_end(data_ + position, end_ - position, ascii);
  if (end == kContainerUnbalanced) return error_at(position, "unbalanced brackets in a JSON value");
  if (end == kContainerTooDeep) {
    return error_at(position,
                    "JSON nested deeper than " + std::to_string(kMaxContainerDepth) +
                        " levels: not a profiler event",
                    ErrorKind::kLimitExceeded);
  }
  if (end == kContainerIncomplete) return kIncomplete;
  return position + end;
}

Result<std::size_t> EventSplitter::scan_value(std::size_t position) const {
  const char c = data_[position];
  if (c == '{' || c == '[') return scan_container(position);
  if (c == '"') return scan_string(position);
  std::size_t at = position;
  while (at < end_) {
    const char d = data_[at];
    if (d == ',' || d == '}' || d == ']' || is_json_space(d)) return at;
    ++at;
  }
  return eof_ ? at : kIncomplete;
}

Result<bool> EventSplitter::next(EventBatch& batch, std::size_t target_bytes) {
  batch.clear();
  if (!in_place_) {
    // Room for the events that reach the target and the one that crosses it (no more than a
    // small input's size): growing by doubling would copy the batch and touch twice its pages.
    // A recycled batch keeps its room.
    constexpr std::size_t kLastEventRoom = 64 << 10;
    batch.text.reserve(std::min(target_bytes + kLastEventRoom, chunk_) + kPadding);
  }
  std::optional<Error> failure;
  while (state_ != State::kDone && batch.bytes < target_bytes) {
    Result<bool> stepped = step(batch, target_bytes);
    if (!stepped) {
      failure = std::move(stepped).error();
      break;
    }
  }
  if (!batch.events.empty() && !in_place_) {
    batch.text.resize(batch.text.size() + kPadding, ' ');
    batch.base = batch.text.data();
  }
  batch.end_offset = base_offset_ + begin_;
  // On an error the batch still holds the whole events before it, for the caller to read first.
  if (failure) return std::move(*failure);
  return !batch.events.empty() || state_ != State::kDone;
}

void EventSplitter::done_with(const EventBatch& batch) {
  // Released in steps of a few megabytes: often enough that the mapping's share of peak memory
  // stays small, rarely enough that the madvise calls cost nothing measurable. Only released_to_
  // is touched here: in the pipeline another thread may be splitting meanwhile.
  constexpr std::uint64_t kReleaseStep = std::uint64_t{8} << 20;
  if (!in_place_ || batch.end_offset < released_to_ + kReleaseStep) return;
  source_.release(released_to_, batch.end_offset);
  released_to_ = batch.end_offset;
}

void EventSplitter::done_with_all() {
  if (!in_place_ || base_offset_ + begin_ <= released_to_) return;
  source_.release(released_to_, base_offset_ + begin_);
  released_to_ = base_offset_ + begin_;
}

void EventSplitter::finish_events_array() { state_ = after_events_; }

void EventSplitter::start_at_event(std::uint64_t offset) {
  // Which form the document has (an object holding traceEvents, or the bare array) decides
  // what may follow the array. A stream cannot be entered in the middle: run_in_parts
  // reads those in one part.
  if (!in_place_) return;
  const char* first = skip_json_space(data_, data_ + end_);
  events_are_root_ = first < data_ + end_ && *first == '[';
  after_events_ = events_are_root_ ? State::kAfterRoot : State::kObjectAfterValue;
  top_level_.object_form = !events_are_root_;
  top_level_.saw_trace_events = true;
  begin_ = static_cast<std::size_t>(std::min<std::uint64_t>(offset, end_));
  released_to_ = begin_;
  state_ = State::kEventsElement;
}

void EventSplitter::resume_after_stop() {
  if (!reached_stop_) return;
  reached_stop_ = false;
  stop_at_.reset();
  state_ = State::kEventsElement;
}

void EventSplitter::append_later_part(const EventSplitter& later) {
  // A key repeated in the JSON takes its last value, as in one reading.
  const TopLevelFields& tail = later.top_level_;
  auto take = [](std::string& field, const std::string& later_value) {
    if (!later_value.empty()) field = later_value;
  };
  take(top_level_.device_properties, tail.device_properties);
  take(top_level_.distributed_info, tail.distributed_info);
  if (!tail.stepscope_host.empty()) {
    top_level_.stepscope_host = tail.stepscope_host;
    top_level_.stepscope_host_offset = tail.stepscope_host_offset;
  }
  take(top_level_.schema_version, tail.schema_version);
  take(top_level_.base_time_nanoseconds, tail.base_time_nanoseconds);
  take(top_level_.display_time_unit, tail.display_time_unit);
  for (const std::string& key : tail.other_keys) {
    if (top_level_.other_keys.size() < kMaxKeysKept) top_level_.other_keys.push_back(key);
  }
  top_level_.unterminated_array_at = tail.unterminated_array_at;
  events_seen_ += later.events_seen_;
  state_ = later.state_;
}

// The end of the event at begin_ (kIncomplete when the buffer ends first), and whether it is
// all ASCII.
Result<std::size_t> EventSplitter::measure_event(bool& ascii) const {
  STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t after, scan_container(begin_, ascii));
  // A buffer is refused at this size when it grows (fill()); a mapping never grows.
  if (after != kIncomplete && after - begin_ > kMaxEventBytes) {
    return error_at(begin_, "a single JSON value is larger than 1 GiB: not a profiler trace event",
                    ErrorKind::kLimitExceeded);
  }
  return after;
}

// The event at begin_ cut out into the batch, its slice at `slice_base + begin_`: the offset
// just past it, or kIncomplete.
Result<std::size_t> EventSplitter::cut_event(EventBatch& batch, std::size_t slice_base) {
  bool ascii = false;
  STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t after, measure_event(ascii));
  if (after == kIncomplete) return kIncomplete;
  batch.events.push_back(EventSlice{static_cast<std::uint32_t>(slice_base + begin_),
                                    static_cast<std::uint32_t>(after - begin_),
                                    base_offset_ + begin_, ascii});
  return after;
}

// The event at begin_ handed to reader_ where it lies. One it declines is measured as
// cut_event() measures it, with the same errors, and handed over with its length.
Result<std::size_t> EventSplitter::read_event_in_place() {
  // The reader sees no further than an event may reach, so that a longer one is declined and
  // then refused by measure_event().
  const char* limit = data_ + std::min(end_, begin_ + kMaxEventBytes);
  STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t length,
                             reader_->read_at(data_ + begin_, limit, base_offset_ + begin_));
  if (length != 0) return begin_ + length;
  bool ascii = false;
  STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t after, measure_event(ascii));
  if (after == kIncomplete) return kIncomplete;
  const EventSlice slice{0, static_cast<std::uint32_t>(after - begin_), base_offset_ + begin_,
                         ascii};
  STEPSCOPE_TRY(reader_->read_measured(data_ + begin_, slice, end_ - begin_ + kPadding));
  return after;
}

// Events one after another while each is whole in the buffer and the batch wants more, without
// a trip through the state machine per event; they are copied into the batch in one piece,
// with the separators between them, which no slice covers.
Result<bool> EventSplitter::split_events(EventBatch& batch, std::size_t target_bytes) {
  const std::size_t run_begin = begin_;
  std::size_t run_end = begin_;
  const char* const data = data_;
  // Where this run's first event lands in the batch: after the texts copied so far, or, in
  // place, at its distance from the batch's first event (runs of one batch are in file order).
  if (in_place_ && batch.base == nullptr) batch.base = data + run_begin;
  const std::size_t text_base =
      in_place_ ? static_cast<std::size_t>(data + run_begin - batch.base) : batch.text.size();
  bool incomplete = false;
  // An event that cannot be cut out ends the run; the events before it stay in the batch, so
  // that an error in one of them (earlier in the file) is still the one reported.
  std::optional<Error> failure;
  for (;;) {  // at the '{' of an event
    if (stop_at_ && base_offset_ + begin_ >= *stop_at_) {
      if (base_offset_ + begin_ == *stop_at_) {
        reached_stop_ = true;
        state_ = State::kDone;
        break;
      }
      stop_at_.reset();  // no event starts there: this splitter reads to the end
    }
    Result<std::size_t> cut =
        reader_ != nullptr ? read_event_in_place() : cut_event(batch, text_base - run_begin);
    if (!cut) {
      failure = std::move(cut).error();
      break;
    }
    const std::size_t after = *cut;
    if (after == kIncomplete) {
      incomplete = true;
      break;
    }
    ++events_seen_;
    begin_ = after;
    run_end = after;
    state_ = State::kEventsAfterElement;
    if (text_base + (after - run_begin) >= target_bytes) break;
    // `, {` continues the run; anything else (the array's end, the buffer's) is left to step().
    const char* next = skip_json_space(data + after, data + end_);
    if (next == data + end_ || *next != ',') break;
    next = skip_json_space(next + 1, data + end_);
    if (next == data + end_ || *next != '{') break;
    begin_ = static_cast<std::size_t>(next - data);
    state_ = State::kEventsElement;
  }
  if (in_place_) {
    if (run_end > run_begin) batch.bytes = text_base + (run_end - run_begin);
  } else {
    batch.text.insert(batch.text.end(), data + run_begin, data + run_end);
    batch.bytes = batch.text.size();
  }
  if (failure) return std::move(*failure);
  if (incomplete) {
    STEPSCOPE_ASSIGN_OR_RETURN(const bool more, fill());
    if (!more) return error_at(begin_, "unexpected end of input inside an event: truncated");
  }
  return true;
}

// Completes one action of the state machine, reading more input when needed.
Result<bool> EventSplitter::step(EventBatch& batch, std::size_t target_bytes) {
  STEPSCOPE_ASSIGN_OR_RETURN(const bool have, next_significant_byte());
  if (!have) {
    if (state_ == State::kAfterRoot) {
      state_ = State::kDone;
      return true;
    }
    if (state_ == State::kBeforeRoot) return error_at(end_, "empty input: no JSON value");
    // The array form may end without ']' (after whole events only, a trailing comma allowed).
    if (events_are_root_ &&
        (state_ == State::kEventsAfterElement || state_ == State::kEventsStart ||
         (state_ == State::kEventsElement && events_seen_ > 0))) {
      top_level_.unterminated_array_at = base_offset_ + end_;
      state_ = State::kDone;
      return true;
    }
    return error_at(end_, "unexpected end of input: the JSON document is truncated");
  }
  const char c = data_[begin_];
  switch (state_) {
    case State::kBeforeRoot:
      if (c == '{') {
        top_level_.object_form = true;
        state_ = State::kObjectKey;
      } else if (c == '[') {
        events_are_root_ = true;
        top_level_.saw_trace_events = true;
        after_events_ = State::kAfterRoot;
        state_ = State::kEventsStart;
      } else if (static_cast<unsigned char>(c) == 0xef) {  // UTF-8 byte order mark
        if (end_ - begin_ < 3) {
          STEPSCOPE_ASSIGN_OR_RETURN(const bool more, fill());
          if (!more) return error_at(begin_, "not JSON: stray byte 0xef");
          return true;
        }
        if (static_cast<unsigned char>(data_[begin_ + 1]) != 0xbb ||
            static_cast<unsigned char>(data_[begin_ + 2]) != 0xbf) {
          return error_at(begin_, "not JSON: expected '{' or '[' at the start");
        }
        begin_ += 2;
      } else {
        // The first read may be short (the two bytes that told gzip apart): read enough to
        // recognise a checkpoint or a snapshot. The input is refused either way.
        while (end_ - begin_ < kFormatHeadBytes) {
          Result<bool> more = fill();
          if (!more || !*more) break;
        }
        const std::string_view head(data_ + begin_,
                                    std::min<std::size_t>(end_ - begin_, kFormatHeadBytes));
        return error_at(
            begin_, "not JSON trace: expected '{' or '[' at the start, found " + describe_byte(c) +
                        io::wrong_format_hint(io::sniff_file_format(head), io::FileFormat::kJson));
      }
      ++begin_;
      return true;
    case State::kObjectKey: {
      if (c == '}') {
        ++begin_;
        state_ = State::kAfterRoot;
        return true;
      }
      if (c != '"') return error_at(begin_, "expected a key string, found " + describe_byte(c));
      STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t after, scan_string(begin_));
      if (after == kIncomplete) {
        STEPSCOPE_ASSIGN_OR_RETURN(const bool more, fill());
        if (!more) return error_at(end_, "unexpected end of input inside a key");
        return true;
      }
      current_key_.assign(data_ + begin_ + 1, after - begin_ - 2);
      begin_ = after;
      state_ = State::kObjectColon;
      return true;
    }
    case State::kObjectColon:
      if (c != ':') return error_at(begin_, "expected ':' after a key, found " + describe_byte(c));
      ++begin_;
      state_ = State::kObjectValue;
      return true;
    case State::kObjectValue: {
      if (current_key_ == "traceEvents") {
        if (c != '[') return error_at(begin_, "traceEvents is not an array", ErrorKind::kNotTrace);
        ++begin_;
        top_level_.saw_trace_events = true;
        after_events_ = State::kObjectAfterValue;
        state_ = State::kEventsStart;
        return true;
      }
      STEPSCOPE_ASSIGN_OR_RETURN(const std::size_t after, scan_value(begin_));
      if (after == kIncomplete) {
        STEPSCOPE_ASSIGN_OR_RETURN(const bool more, fill());
        if (!more) return error_at(end_, "unexpected end of input inside \"" + current_key_ + "\"");
        return true;
      }
      const std::string_view raw(data_ + begin_, after - begin_);
      if (current_key_ == "deviceProperties") {
        top_level_.device_properties.assign(raw);
      } else if (current_key_ == "distributedInfo") {
        top_level_.distributed_info.assign(raw);
      } else if (current_key_ == "stepscope_host") {
        top_level_.stepscope_host.assign(raw);
        top_level_.stepscope_host_offset = base_offset_ + begin_;
      } else if (current_key_ == "schemaVersion") {
        top_level_.schema_version.assign(raw);
      } else if (current_key_ == "baseTimeNanoseconds") {
        top_level_.base_time_nanoseconds.assign(raw);
      } else if (current_key_ == "displayTimeUnit") {
        top_level_.display_time_unit.assign(raw);
      } else if (top_level_.other_keys.size() < kMaxKeysKept) {
        top_level_.other_keys.push_back(current_key_);
      }
      begin_ = after;
      state_ = State::kObjectAfterValue;
      return true;
    }
    case State::kObjectAfterValue:
      ++begin_;
      if (c == ',') {
        state_ = State::kObjectKey;
      } else if (c == '}') {
        state_ = State::kAfterRoot;
      } else {
        return error_at(begin_ - 1,
                        "expected ',' or '}' in the top-level object, found " + describe_byte(c));
      }
      return true;
    case State::kEventsStart:
      if (c == ']') {
        ++begin_;
        finish_events_array();
        return true;
      }
      state_ = State::kEventsElement;
      return true;
    case State::kEventsElement: {
      if (c != '{') {
        if (events_seen_ == 0) {
          return error_at(begin_,
                          "not a Chrome trace: the first element of the event array is "
                          "not an event object (found " +
                              describe_byte(c) + ")",
                          ErrorKind::kNotTrace);
        }
        return error_at(begin_,
                        "element " + std::to_string(events_seen_) +
                            " of the event array is not an event object (found " +
                            describe_byte(c) + ")",
                        ErrorKind::kNotTrace);
      }
      return split_events(batch, target_bytes);
    }
    case State::kEventsAfterElement:
      ++begin_;
      if (c == ',') {
        state_ = State::kEventsElement;
      } else if (c == ']') {
        finish_events_array();
      } else {
        return error_at(begin_ - 1,
                        "expected ',' or ']' after an event, found " + describe_byte(c));
      }
      return true;
    case State::kAfterRoot:
      return error_at(begin_,
                      "unexpected data after the end of the JSON document: " + describe_byte(c));
    case State::kDone:
      return true;
  }
  return true;
}

}  // namespace stepscope::kineto
