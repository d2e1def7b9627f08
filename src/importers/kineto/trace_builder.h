// Accumulates parsed events into the columnar Trace: interns strings and threads, pairs B/E
// events, keeps memory samples and flows, counts what it does not analyse, and at the end sorts
// the events by time and resolves the links (linker.h).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "importers/kineto/event_args_rows.h"
#include "importers/kineto/event_splitter.h"
#include "importers/kineto/raw_event.h"
#include "load/import_notes.h"
#include "stepscope/error.h"
#include "stepscope/trace.h"

namespace stepscope::kineto {

class TraceBuilder {
 public:
  explicit TraceBuilder(Trace& trace) : trace_(trace) {}

  // Reserves address space for about this many events so that columns never move while they
  // grow (untouched pages cost no resident memory); less where the address space is limited.
  // `movable`: the event columns and rows in pages of their own, for a trace read in parts,
  // whose parts absorb() then joins by moving pages (ColumnPages::append_moving).
  void reserve(std::size_t expected_events, bool movable = false);
  Status add(const RawEvent& event);
  // Reads the top-level fields, sorts and links, on up to `threads` threads. The trace is
  // complete after this.
  Status finish(const TopLevelFields& top_level, unsigned threads = 1);
  // This builder reads the later part of a trace read in two parts at once: an `E` event whose
  // `B` is not in its part is kept for the earlier part's builder to match.
  void continue_earlier_part() { later_part_ = true; }
  // Appends what `later` built from the part after this builder's, exactly as if this builder
  // had read it: strings and threads renumbered in order of first use, rows moved, `E` events
  // matched against the `B` events still open here, counts and notes added. Parts after this
  // one may be absorbed in turn; a part that absorbed parts of its own may be absorbed.
  void absorb(TraceBuilder& later, unsigned workers = 1);
  // How many columns absorb() joined by moving pages rather than copying values: lets a test
  // see which way it went.
  [[nodiscard]] std::size_t columns_moved() const { return columns_moved_; }
  // What was accepted rather than refused, for the TraceSet's notes.
  [[nodiscard]] const ImportNotes& notes() const { return notes_; }

 private:
  void reserve_columns(std::size_t expected_events, bool movable);
  Status add_complete(const RawEvent& event, std::int64_t start_ns, std::int64_t dur_ns);
  void add_memory(const RawEvent& event, std::int64_t time_ns);
  void add_flow(const RawEvent& event, std::int64_t time_ns);
  void add_metadata(const RawEvent& event);
  std::uint32_t thread_index(const RawId& pid, const RawId& tid);
  // Categories are few: classify each once, by its interned id.
  EventClass class_of_category(StringId id, std::string_view category);
  void drop_unmatched_begins();
  void sort_events(unsigned threads);

  static constexpr std::uint8_t kUnclassified = 0xff;
  Trace& trace_;
  ImportNotes notes_;
  std::vector<std::uint8_t> category_classes_;
  // The last event's category: consecutive events mostly share it, and comparing a few bytes
  // costs less than hashing them.
  StringId last_category_ = 0;
  StringId last_flow_category_ = 0;  // the same for flows, whose category is another
  SuccessorInterner names_;
  EventArgsInterners arg_texts_;
  std::unordered_map<std::string, std::uint32_t> thread_lookup_;
  // The last few threads looked up, replaced in turn: events alternate between a few threads
  // (ops, runtime calls, a stream's kernels), and one found here needs no key built.
  struct RecentThread {
    std::string pid;
    std::string tid;
    std::int64_t pid_number = 0;  // when pid_is_number
    std::int64_t tid_number = 0;
    bool pid_is_number = false;
    bool tid_is_number = false;
    bool pid_plain_decimal = false;
    bool tid_plain_decimal = false;
    std::uint32_t index = 0;
  };
  static constexpr std::size_t kRecentThreads = 4;
  std::array<RecentThread, kRecentThreads> recent_threads_;
  std::size_t recent_count_ = 0;
  std::size_t recent_next_ = 0;  // the entry replaced next
  // The entry the last event's thread was found in: most events (four in five in a Kineto
  // trace) are on the thread of the event before them.
  std::size_t recent_last_ = 0;
  // Open `B` events per thread, as indices of events whose duration is not known yet.
  std::unordered_map<std::uint32_t, std::vector<EventIndex>> open_begins_;
  // The later part's `E` events that found no `B` in it, in file order.
  struct PendingEnd {
    std::uint32_t thread = 0;
    std::int64_t time_ns = 0;
  };
  bool later_part_ = false;
  std::vector<PendingEnd> pending_ends_;

  // Ids of the later part to this part's: strings, threads, op-input rows (shared, so found
  // by their texts), and the row bases of its other tables.
  struct AbsorbMaps {
    const std::vector<StringId>& strings;
    const std::vector<std::uint32_t>& threads;
    const std::vector<std::int32_t>& inputs_rows;
    std::int32_t args_base;
    std::int32_t device_base;
    std::int32_t collective_base;
  };
  // Each returns how many columns moved rather than copied.
  std::size_t absorb_first_half(Trace& later, const AbsorbMaps& maps);
  std::size_t absorb_second_half(Trace& later, const AbsorbMaps& maps);
  std::size_t columns_moved_ = 0;

  // Calls visit(column) for each event column but the times: `half` 0 the 8-byte ones, 1 the
  // rest (about as many bytes). The one list of those columns for the time-order permute.
  template <typename Visit>
  void visit_event_columns(std::size_t half, const Visit& visit);
  void absorb_begins_and_ends(TraceBuilder& later, EventIndex first_event,
                              const std::vector<std::uint32_t>& threads);
  std::vector<std::uint32_t> absorb_threads(const TraceBuilder& later);
};

}  // namespace stepscope::kineto
