// Cuts the events of a Chrome-trace JSON stream out one at a time, without building a DOM of
// the whole document: the top level is walked by a small state machine, each element of
// `traceEvents` is copied whole into a batch, and the few other top-level fields the importer
// needs are kept as raw JSON text. Events are parsed later, batch by batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_source.h"
#include "stepscope/error.h"

namespace stepscope::kineto {

struct EventSlice {
  std::uint32_t offset;  // in EventBatch::text
  std::uint32_t length;
  std::uint64_t file_offset;  // in the decompressed input
  bool ascii = false;         // every byte below 0x80: valid UTF-8 without a check
};

// The texts of consecutive events: copied out of a read buffer, or, when the input is a mapped
// file, left where they lie in the mapping. Either way at least kEventPadding readable bytes
// follow the last of them, as simdjson needs.
inline constexpr std::size_t kEventPadding = 64;

struct EventBatch {
  std::vector<char> text;        // the copied texts, when the splitter copies
  const char* base = nullptr;    // slices' offsets count from here: text.data() or the mapping
  std::size_t bytes = 0;         // from base to the end of the last event
  std::uint64_t end_offset = 0;  // input offset just past the last event
  std::vector<EventSlice> events;

  // The events' text and the padding after it.
  [[nodiscard]] std::string_view padded() const {
    return base == nullptr ? std::string_view() : std::string_view(base, bytes + kEventPadding);
  }
  void clear() {
    text.clear();
    base = nullptr;
    bytes = 0;
    end_offset = 0;
    events.clear();
  }
};

// Raw JSON text of the top-level fields other than traceEvents (empty when absent).
struct TopLevelFields {
  bool object_form = false;
  bool saw_trace_events = false;
  std::string device_properties;
  std::string distributed_info;
  std::string stepscope_host;  // written by stepscope.torch.profile
  std::uint64_t stepscope_host_offset = 0;
  std::string schema_version;
  std::string base_time_nanoseconds;
  std::string display_time_unit;
  std::vector<std::string> other_keys;  // the first few, to explain what a non-trace file is
  // The JSON array form ended without its closing ']' (Chrome and Perfetto accept that): the
  // offset of the end, for the import note.
  std::optional<std::uint64_t> unterminated_array_at;
};

// Reads each event where it lies as the splitter reaches it, on the splitting thread, so that a
// mapped input's events need no batch of slices and no bracket scan of their own.
class InPlaceReader {
 public:
  virtual ~InPlaceReader() = default;
  // Reads the event at `text` (its '{'; the input goes on to `end`): its length, or 0 when it
  // declines, and the splitter then measures the event and hands it to read_measured().
  virtual Result<std::size_t> read_at(const char* text, const char* end,
                                      std::uint64_t file_offset) = 0;
  // A declined event, measured: `slice` counts from `text`, readable for `capacity` bytes.
  virtual Status read_measured(const char* text, const EventSlice& slice, std::size_t capacity) = 0;
};

class EventSplitter {
 public:
  explicit EventSplitter(io::ByteSource& source);

  // Fills `batch` with events until about `target_bytes` of text; false once none remain and the
  // whole document has been checked. A batch of a mapped input points into the mapping. On an
  // error, `batch` holds the events cut out before it: they come first in the file, so a reader
  // reads them, and reports an error among them, before this one.
  Result<bool> next(EventBatch& batch, std::size_t target_bytes);
  // A mapped input's events then go to `reader` as they are reached, not into batches (which
  // keep their size and offsets, for releasing pages and for progress). Ignored for a stream.
  void read_in_place_with(InPlaceReader* reader) {
    if (in_place_) reader_ = reader;
  }

  // The caller has parsed `batch` and every batch before it: a mapped input may let their
  // pages go. Batches are done with in the order they were split.
  void done_with(const EventBatch& batch);
  // The same for everything split so far, once no thread is splitting (the progress then counts
  // the tail of the input as well).
  void done_with_all();

  // Reading a mapped trace in parts at once (read_in_parts.h). A later part's splitter starts
  // at `offset`, taken to be the start of an event in the event array; the part before stops
  // before the event that starts at `offset`, if one does, which proves the guess. Without an
  // event starting there, the part before reads to the end.
  void start_at_event(std::uint64_t offset);
  void stop_at_event(std::uint64_t offset) { stop_at_ = offset; }
  [[nodiscard]] bool reached_stop() const { return reached_stop_; }
  // Goes on past the stop reached: to the next stop set, or, with none, to the end (when a
  // later part cannot be used).
  void resume_after_stop();
  // Takes what the later part's splitter read after this one's stop: the top-level fields
  // that follow the event array, and its count of events.
  void append_later_part(const EventSplitter& later);

  [[nodiscard]] const TopLevelFields& top_level() const { return top_level_; }
  [[nodiscard]] std::uint64_t events_seen() const { return events_seen_; }
  [[nodiscard]] std::uint64_t bytes_read() const { return base_offset_ + end_; }

 private:
  enum class State {
    kBeforeRoot,
    kObjectKey,  // expecting a key or '}'
    kObjectColon,
    kObjectValue,
    kObjectAfterValue,    // expecting ',' or '}'
    kEventsStart,         // just after '[' of the events array
    kEventsElement,       // expecting an event object
    kEventsAfterElement,  // expecting ',' or ']'
    kAfterRoot,
    kDone,
  };

  Result<bool> step(EventBatch& batch, std::size_t target_bytes);
  // Cuts out consecutive events starting at the '{' at begin_.
  Result<bool> split_events(EventBatch& batch, std::size_t target_bytes);
  Result<std::size_t> measure_event(bool& ascii) const;
  Result<std::size_t> cut_event(EventBatch& batch, std::size_t slice_base);
  Result<std::size_t> read_event_in_place();
  // Ensures at least one unread byte after skipping whitespace; false at the end of input.
  Result<bool> next_significant_byte();
  Result<bool> fill();
  Result<bool> wait_for_more();  // in place, a text that grows
  void grow(std::size_t capacity);
  // Scans a whole JSON value at begin_; returns its end or npos if the buffer ends first.
  Result<std::size_t> scan_value(std::size_t position) const;
  Result<std::size_t> scan_string(std::size_t position) const;
  Result<std::size_t> scan_container(std::size_t position) const;
  Result<std::size_t> scan_container(std::size_t position, bool& ascii) const;
  // Most splitter errors mean the bytes are not valid JSON; the caller says when it is another
  // kind.
  Error error_at(std::size_t position, std::string message,
                 ErrorKind kind = ErrorKind::kNotJson) const;
  void finish_events_array();

  io::ByteSource& source_;
  std::size_t chunk_ = 0;      // bytes asked of the source at a time, at most
  std::size_t next_read_ = 0;  // bytes asked by the next fill: small at first, doubling to chunk_
  // Not zero-filled on allocation: every byte up to end_ + kPadding is written before it is read.
  std::unique_ptr<char[]> buffer_;
  // The bytes scanned: buffer_, or the whole input when the source maps it.
  const char* data_ = nullptr;
  bool in_place_ = false;  // the input is mapped: batches point into it instead of copying
  InPlaceReader* reader_ = nullptr;
  std::uint64_t released_to_ = 0;  // done_with() released the input before this offset
  std::optional<std::uint64_t> stop_at_;
  bool reached_stop_ = false;
  std::size_t capacity_ = 0;       // allocated bytes, padding included
  std::size_t begin_ = 0;          // first unconsumed byte
  std::size_t end_ = 0;            // one past the last filled byte
  std::uint64_t base_offset_ = 0;  // input offset of buffer_[0]
  bool eof_ = false;
  State state_ = State::kBeforeRoot;
  State after_events_ = State::kAfterRoot;
  std::string current_key_;
  bool events_are_root_ = false;
  std::uint64_t events_seen_ = 0;
  TopLevelFields top_level_;
};

}  // namespace stepscope::kineto
