#include "importers/kineto/trace_builder.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <numeric>
#include <type_traits>

#include "concurrency/parallel_for.h"
#include "importers/kineto/decimal.h"
#include "importers/kineto/event_args_rows.h"
#include "importers/kineto/input_sampling.h"
#include "trace/column_pages.h"
#include "trace/linker.h"
#include "trace/time_order.h"

namespace stepscope::kineto {

namespace {

// The bytes a column's values are saved to before they are read back in time order: one buffer
// per thread, reused by every column. Reordering into a new vector per column instead (and
// freeing the old one, whose reserved but untouched tail malloc then handed out again) touched
// fresh pages for every column: about 20,000 page faults on a trace of 3.8 M events, at about
// 2 us each on the 2-core VM measured.
class ReorderScratch {
 public:
  std::byte* hold(std::size_t bytes) {
    if (bytes > size_) {
      bytes_.reset(new std::byte[bytes]);
      size_ = bytes;
    }
    return bytes_.get();
  }

 private:
  std::unique_ptr<std::byte[]> bytes_;
  std::size_t size_ = 0;
};

// Puts one column in `order`, in place: its values are copied aside, then read back in order.
template <typename C>
void reorder(const std::vector<EventIndex>& order, C& column, ReorderScratch& scratch) {
  using T = typename C::value_type;
  static_assert(std::is_trivially_copyable_v<T>);
  const std::size_t n = order.size();
  if (n == 0) return;
  std::byte* saved = scratch.hold(n * sizeof(T));
  std::memcpy(saved, column.data(), n * sizeof(T));
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(&column[k], saved + static_cast<std::size_t>(order[k]) * sizeof(T), sizeof(T));
  }
}

template <typename... Columns>
void permute(const std::vector<EventIndex>& order, ReorderScratch& scratch, Columns&... columns) {
  (reorder(order, columns, scratch), ...);
}

template <typename C>
void keep_where(C& column, const std::vector<bool>& keep) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < column.size(); ++i) {
    if (keep[i]) column[out++] = column[i];
  }
  column.resize(out);
}

Result<std::int64_t> time_literal_to_ns(std::string_view literal, std::string_view field) {
  std::optional<std::int64_t> ns = microseconds_literal_to_ns(literal);
  if (!ns) {
    return make_error(ErrorKind::kNotTrace, "field \"" + std::string(field) + "\": number " +
                                                std::string(literal.substr(0, 40)) +
                                                (literal.size() > 40 ? "..." : "") +
                                                " is out of range for a time in microseconds");
  }
  return *ns;
}

// Whether `id` has the text `text`, whose number and form are given. Equal texts read as equal
// numbers, so differing numbers decide without a text compare, and so do equal numbers both in
// plain decimal (RawId::plain_decimal) with their lengths.
bool same_id(const RawId& id, std::string_view text, std::int64_t number, bool is_number,
             bool plain_decimal) {
  if (id.is_number != is_number) return false;
  if (!is_number) return id.text == text;
  if (id.number != number) return false;
  if (id.plain_decimal && plain_decimal) return id.text.size() == text.size();
  return id.text == text;
}

template <typename Recent>
bool is_thread(const Recent& recent, const RawId& pid, const RawId& tid) {
  return same_id(tid, recent.tid, recent.tid_number, recent.tid_is_number,
                 recent.tid_plain_decimal) &&
         same_id(pid, recent.pid, recent.pid_number, recent.pid_is_number,
                 recent.pid_plain_decimal);
}

}  // namespace

std::uint32_t TraceBuilder::thread_index(const RawId& pid, const RawId& tid) {
  if (recent_count_ != 0 && is_thread(recent_threads_[recent_last_], pid, tid)) {
    return recent_threads_[recent_last_].index;
  }
  for (std::size_t k = 0; k < recent_count_; ++k) {
    if (is_thread(recent_threads_[k], pid, tid)) {
      recent_last_ = k;
      return recent_threads_[k].index;
    }
  }
  std::string key;
  key.reserve(pid.text.size() + tid.text.size() + 4);
  key.push_back(pid.is_number ? 'n' : 's');
  key.append(pid.text);
  key.push_back('\0');
  key.push_back(tid.is_number ? 'n' : 's');
  key.append(tid.text);
  auto [entry, inserted] = thread_lookup_.try_emplace(std::move(key), 0);
  if (inserted) {
    entry->second = static_cast<std::uint32_t>(trace_.threads.size());
    ThreadInfo info;
    info.key = ThreadKey{std::string(pid.text), std::string(tid.text)};
    info.pid_number = pid.is_number ? pid.number : kAbsent;
    info.tid_number = tid.is_number ? tid.number : kAbsent;
    trace_.threads.push_back(std::move(info));
  }
  RecentThread& recent = recent_threads_[recent_next_];
  recent.pid.assign(pid.text);
  recent.tid.assign(tid.text);
  recent.pid_number = pid.number;
  recent.tid_number = tid.number;
  recent.pid_is_number = pid.is_number;
  recent.tid_is_number = tid.is_number;
  recent.pid_plain_decimal = pid.plain_decimal;
  recent.tid_plain_decimal = tid.plain_decimal;
  recent.index = entry->second;
  recent_last_ = recent_next_;
  recent_next_ = (recent_next_ + 1) % kRecentThreads;
  recent_count_ = std::min(recent_count_ + 1, kRecentThreads);
  return entry->second;
}

void TraceBuilder::reserve_columns(std::size_t expected_events, bool movable) {
  const auto reserve_column = [movable](auto& column, std::size_t count) {
    if (movable) {
      ColumnPages::reserve_movable(column, count);
    } else {
      column.reserve(count);
    }
  };
  EventTable& e = trace_.events;
  reserve_column(e.start_ns, expected_events);
  reserve_column(e.dur_ns, expected_events);
  reserve_column(e.name, expected_events);
  reserve_column(e.category, expected_events);
  reserve_column(e.event_class, expected_events);
  reserve_column(e.thread, expected_events);
  reserve_column(e.stream, expected_events);
  reserve_column(e.device, expected_events);
  reserve_column(e.correlation, expected_events);
  reserve_column(e.external_id, expected_events);
  reserve_column(e.args_row, expected_events);
  reserve_column(e.source_offset, expected_events);
  reserve_column(e.source_length, expected_events);
  reserve_column(trace_.args, expected_events / 2);
  if (!movable) return;  // the other tables grow as they fill; only parts move theirs
  // Address space, as the rest: memory samples and flows are fewer than events, as a rule.
  MemoryTable& m = trace_.memory;
  const std::size_t samples = expected_events / 2;
  reserve_column(m.time_ns, samples);
  reserve_column(m.address, samples);
  reserve_column(m.bytes, samples);
  reserve_column(m.total_allocated, samples);
  reserve_column(m.total_reserved, samples);
  reserve_column(m.device_type, samples);
  reserve_column(m.device_id, samples);
  reserve_column(m.thread, samples);
  FlowTable& f = trace_.flows;
  const std::size_t flows = expected_events / 2;
  reserve_column(f.time_ns, flows);
  reserve_column(f.id, flows);
  reserve_column(f.phase, flows);
  reserve_column(f.category, flows);
  reserve_column(f.thread, flows);
}

void TraceBuilder::reserve(std::size_t expected_events, bool movable) {
  // Reserved pages cost no memory until written, and a column that never outgrows its space is
  // never copied. Under an address-space limit, ask for less until it fits: the columns grow past
  // the reservation if they must.
  constexpr std::size_t kSmallestReservation = 1U << 16;
  for (std::size_t events = expected_events;; events /= 2) {
    try {
      reserve_columns(events, movable);
      return;
    } catch (const std::bad_alloc&) {
      trace_.events = EventTable{};
      trace_.args = {};
      trace_.memory = MemoryTable{};
      trace_.flows = FlowTable{};
      if (events <= kSmallestReservation) return;
    }
  }
}

Status TraceBuilder::add(const RawEvent& event) {
  ImportStats& stats = trace_.stats;
  ++stats.events_seen;
  for (std::uint8_t i = 0; i < event.tolerated_count; ++i) {
    const RawEvent::Tolerated& t = event.tolerated[i];
    const char* what = t.repaired ? " held a lone UTF-16 surrogate, replaced by U+FFFD"
                       : t.parsed ? " held a numeric string, parsed as a number"
                                  : " had the wrong type, treated as absent";
    notes_.add(std::string(t.field) + what, event.file_offset);
  }
  std::int64_t time_ns = 0;
  if (event.has_ts && event.ts.converted) {
    time_ns = event.ts.ns;
    if (event.ts.fractional) stats.any_fractional_ts_literal = true;
  } else if (event.has_ts) {
    STEPSCOPE_ASSIGN_OR_RETURN(time_ns, time_literal_to_ns(event.ts_literal, "ts"));
    if (!stats.any_fractional_ts_literal && !is_integer_literal(event.ts_literal)) {
      stats.any_fractional_ts_literal = true;
    }
  } else {
    stats.any_event_without_ts = true;
  }
  switch (event.phase) {
    case 'X': {
      if (!event.has_ts || !event.has_dur) {
        ++stats.invalid_complete_events;
        return Done{};
      }
      std::int64_t dur = event.dur.ns;
      if (!event.dur.converted) {
        STEPSCOPE_ASSIGN_OR_RETURN(dur, time_literal_to_ns(event.dur_literal, "dur"));
      }
      if (dur < 0) {
        ++stats.invalid_complete_events;
        return Done{};
      }
      ++stats.complete_events;
      return add_complete(event, time_ns, dur);
    }
    case 'B': {
      if (!event.has_ts) {
        ++stats.invalid_complete_events;
        return Done{};
      }
      const auto index = static_cast<EventIndex>(trace_.events.size());
      STEPSCOPE_TRY(add_complete(event, time_ns, -1));
      open_begins_[trace_.events.thread.back()].push_back(index);
      return Done{};
    }
    case 'E': {
      const std::uint32_t thread = thread_index(event.pid, event.tid);
      auto& stack = open_begins_[thread];
      if (stack.empty() && event.has_ts && later_part_) {
        pending_ends_.push_back(PendingEnd{thread, time_ns});
        return Done{};
      }
      if (stack.empty() || !event.has_ts) {
        ++stats.unmatched_begin_end;
        return Done{};
      }
      const EventIndex begin = stack.back();
      stack.pop_back();
      const std::int64_t dur = time_ns - trace_.events.start_ns[begin];
      if (dur < 0) {
        ++stats.unmatched_begin_end;
        return Done{};
      }
      trace_.events.dur_ns[begin] = dur;
      ++stats.complete_events;
      return Done{};
    }
    case 'i':
    case 'I':
      ++stats.instant_events;
      if (event.name == "[memory]" && event.has_ts) add_memory(event, time_ns);
      return Done{};
    case 's':
    case 'f':
    case 't':
      ++stats.flow_events;
      if (event.has_ts) add_flow(event, time_ns);
      return Done{};
    case 'C':
      ++stats.counter_events;
      return Done{};
    case 'M':
      ++stats.metadata_events;
      add_metadata(event);
      return Done{};
    case 'b':
    case 'e':
    case 'n':
      ++stats.async_events;
      return Done{};
    case 0:  // no usable phase: nothing to place the event by
      notes_.add("event without a usable \"ph\" (phase), skipped", event.file_offset);
      return Done{};
    default:
      ++stats.other_phase_events;
      return Done{};
  }
}

Status TraceBuilder::add_complete(const RawEvent& event, std::int64_t start_ns,
                                  std::int64_t dur_ns) {
  EventTable& events = trace_.events;
  StringPool& strings = trace_.strings;
  if (event.category != strings.view(last_category_)) {
    last_category_ = strings.intern(event.category);
  }
  const StringId category = last_category_;
  const EventClass event_class = class_of_category(category, event.category);
  if (event_class == EventClass::kOther) ++trace_.stats.unknown_category_events;
  events.start_ns.push_back(start_ns);
  events.dur_ns.push_back(dur_ns);
  events.name.push_back(names_.intern(event.name, strings));
  events.category.push_back(category);
  events.event_class.push_back(event_class);
  events.thread.push_back(thread_index(event.pid, event.tid));
  events.stream.push_back(event.stream);
  events.device.push_back(static_cast<std::int32_t>(
      event.device >= INT32_MIN && event.device <= INT32_MAX ? event.device : kAbsent));
  events.correlation.push_back(event.correlation);
  events.external_id.push_back(event.external_id);
  events.source_offset.push_back(event.file_offset);
  events.source_length.push_back(event.length);
  events.args_row.push_back(event.has_event_args ? append_event_args(event, trace_, arg_texts_)
                                                 : -1);
  return Done{};
}

EventClass TraceBuilder::class_of_category(StringId id, std::string_view category) {
  if (id >= category_classes_.size()) category_classes_.resize(id + 1, kUnclassified);
  if (category_classes_[id] == kUnclassified) {
    category_classes_[id] = static_cast<std::uint8_t>(classify_category(category));
  }
  return static_cast<EventClass>(category_classes_[id]);
}

void TraceBuilder::add_memory(const RawEvent& event, std::int64_t time_ns) {
  if (!event.memory.has_address)
    return;  // PyTorch < 1.10 records: ignored (docs/metrics/11-memory-curve-from-memory-events.md
             // §11)
  ++trace_.stats.memory_events;
  MemoryTable& memory = trace_.memory;
  memory.time_ns.push_back(time_ns);
  memory.address.push_back(event.memory.address);
  memory.bytes.push_back(event.memory.bytes);
  memory.total_allocated.push_back(event.memory.total_allocated);
  memory.total_reserved.push_back(event.memory.total_reserved);
  memory.device_type.push_back(static_cast<std::int8_t>(event.memory.device_type));
  memory.device_id.push_back(static_cast<std::int16_t>(event.memory.device_id));
  memory.thread.push_back(thread_index(event.pid, event.tid));
}

void TraceBuilder::add_flow(const RawEvent& event, std::int64_t time_ns) {
  FlowTable& flows = trace_.flows;
  flows.time_ns.push_back(time_ns);
  flows.id.push_back(event.flow_id);
  flows.phase.push_back(event.phase);
  if (event.category != trace_.strings.view(last_flow_category_)) {
    last_flow_category_ = trace_.strings.intern(event.category);
  }
  flows.category.push_back(last_flow_category_);
  flows.thread.push_back(thread_index(event.pid, event.tid));
}

void TraceBuilder::add_metadata(const RawEvent& event) {
  if (event.name == "thread_name" && !event.metadata_name.empty()) {
    trace_.threads[thread_index(event.pid, event.tid)].name = std::string(event.metadata_name);
  }
}

std::vector<std::uint32_t> TraceBuilder::absorb_threads(const TraceBuilder& later) {
  std::vector<const std::string*> keys(later.trace_.threads.size(), nullptr);
  for (const auto& [key, index] : later.thread_lookup_) keys[index] = &key;
  std::vector<std::uint32_t> threads(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const ThreadInfo& info = later.trace_.threads[k];
    auto [entry, inserted] =
        thread_lookup_.try_emplace(*keys[k], static_cast<std::uint32_t>(trace_.threads.size()));
    if (inserted) {
      trace_.threads.push_back(info);
    } else if (!info.name.empty()) {
      trace_.threads[entry->second].name = info.name;  // the later `thread_name` wins
    }
    threads[k] = entry->second;
  }
  return threads;
}

namespace {

template <typename C>
void append(C& to, const C& from) {
  to.insert(to.end(), from.begin(), from.end());
}

// Appends later parts' columns to this part's, by taking over their pages where they can move
// (ColumnPages::append_moving), and counts the columns that moved.
class ColumnJoiner {
 public:
  template <typename T>
  void join(Column<T>& to, Column<T>& from) {
    moved_ += ColumnPages::append_moving(to, from) ? 1 : 0;
  }
  // The same, the values appended passed through `map` (ids of the later part to this part's).
  template <typename T, typename Map>
  void join(Column<T>& to, Column<T>& from, const Map& map) {
    moved_ += ColumnPages::append_moving(to, from, map) ? 1 : 0;
  }
  [[nodiscard]] std::size_t moved() const { return moved_; }

 private:
  std::size_t moved_ = 0;
};

}  // namespace

// Two halves of about as many bytes, one per thread. Where the later part's pages move into
// this part's columns (ColumnPages::append_moving), its values are moved within pages already
// touched rather than written into fresh ones, and only the ids are rewritten.
std::size_t TraceBuilder::absorb_first_half(Trace& later, const AbsorbMaps& maps) {
  ColumnJoiner joiner;
  EventTable& e = trace_.events;
  EventTable& f = later.events;
  joiner.join(e.dur_ns, f.dur_ns);
  joiner.join(e.stream, f.stream);
  joiner.join(e.correlation, f.correlation);
  joiner.join(e.external_id, f.external_id);
  joiner.join(e.source_offset, f.source_offset);
  joiner.join(trace_.args, later.args, [&maps](EventArgs row) {
    if (row.inputs_row >= 0) row.inputs_row = maps.inputs_rows[row.inputs_row];
    if (row.device_row >= 0) row.device_row += maps.device_base;
    if (row.collective_row >= 0) row.collective_row += maps.collective_base;
    return row;
  });
  return joiner.moved();
}

std::size_t TraceBuilder::absorb_second_half(Trace& later, const AbsorbMaps& maps) {
  ColumnJoiner joiner;
  EventTable& e = trace_.events;
  EventTable& f = later.events;
  joiner.join(e.start_ns, f.start_ns);
  const auto string_id = [&maps](StringId id) { return maps.strings[id]; };
  const auto thread_index = [&maps](std::uint32_t t) { return maps.threads[t]; };
  joiner.join(e.name, f.name, string_id);
  joiner.join(e.category, f.category, string_id);
  joiner.join(e.thread, f.thread, thread_index);
  joiner.join(e.device, f.device);
  joiner.join(e.args_row, f.args_row, [&maps](std::int32_t row) {
    return row < 0 ? std::int32_t{-1} : row + maps.args_base;
  });
  joiner.join(e.event_class, f.event_class);
  joiner.join(e.source_length, f.source_length);
  append(trace_.device_args, later.device_args);
  for (CollectiveArgs row : later.collective_args) {
    row.collective_name = maps.strings[row.collective_name];
    row.dtype = maps.strings[row.dtype];
    row.process_group_name = maps.strings[row.process_group_name];
    trace_.collective_args.push_back(row);
  }
  MemoryTable& m = later.memory;
  MemoryTable& memory = trace_.memory;
  joiner.join(memory.time_ns, m.time_ns);
  joiner.join(memory.address, m.address);
  joiner.join(memory.bytes, m.bytes);
  joiner.join(memory.total_allocated, m.total_allocated);
  joiner.join(memory.total_reserved, m.total_reserved);
  joiner.join(memory.device_type, m.device_type);
  joiner.join(memory.device_id, m.device_id);
  joiner.join(memory.thread, m.thread, thread_index);
  FlowTable& later_flows = later.flows;
  FlowTable& flows = trace_.flows;
  joiner.join(flows.time_ns, later_flows.time_ns);
  joiner.join(flows.id, later_flows.id);
  joiner.join(flows.phase, later_flows.phase);
  joiner.join(flows.category, later_flows.category, string_id);
  joiner.join(flows.thread, later_flows.thread, thread_index);
  return joiner.moved();
}

template <typename Visit>
void TraceBuilder::visit_event_columns(std::size_t half, const Visit& visit) {
  EventTable& e = trace_.events;
  if (half == 0) {
    visit(e.stream);
    visit(e.correlation);
    visit(e.external_id);
    visit(e.source_length);
    return;
  }
  visit(e.source_offset);
  visit(e.name);
  visit(e.category);
  visit(e.thread);
  visit(e.device);
  visit(e.args_row);
  visit(e.event_class);
}

// The later part's unmatched `E` events close this part's open `B` events, in file order, as
// they would have in one reading; its own open `B` events then stack above this part's. When
// this builder reads a later part itself, an `E` that finds no `B` here stays pending, after
// this part's own, for the builder of the parts before.
void TraceBuilder::absorb_begins_and_ends(TraceBuilder& later, EventIndex first_event,
                                          const std::vector<std::uint32_t>& threads) {
  ImportStats& stats = trace_.stats;
  for (const PendingEnd& end : later.pending_ends_) {
    auto& stack = open_begins_[threads[end.thread]];
    if (stack.empty()) {
      if (later_part_) {
        pending_ends_.push_back(PendingEnd{threads[end.thread], end.time_ns});
      } else {
        ++stats.unmatched_begin_end;
      }
      continue;
    }
    const EventIndex begin = stack.back();
    stack.pop_back();
    const std::int64_t dur = end.time_ns - trace_.events.start_ns[begin];
    if (dur < 0) {
      ++stats.unmatched_begin_end;
      continue;
    }
    trace_.events.dur_ns[begin] = dur;
    ++stats.complete_events;
  }
  // Thread by thread in the later part's thread order: stacks of different threads are
  // independent, and each keeps its own order.
  std::vector<std::uint32_t> later_threads;
  for (const auto& [thread, stack] : later.open_begins_) {
    if (!stack.empty()) later_threads.push_back(thread);
  }
  std::sort(later_threads.begin(), later_threads.end());
  for (const std::uint32_t thread : later_threads) {
    auto& stack = open_begins_[threads[thread]];
    for (const EventIndex begin : later.open_begins_[thread]) stack.push_back(begin + first_event);
  }
}

void TraceBuilder::absorb(TraceBuilder& later, unsigned workers) {
  Trace& part = later.trace_;
  // Strings in the later part's order of first use: the same order one reading interns them.
  std::vector<StringId> strings(part.strings.size());
  for (std::size_t id = 0; id < strings.size(); ++id) {
    strings[id] = trace_.strings.intern(part.strings.view(static_cast<StringId>(id)));
  }
  const std::vector<std::uint32_t> threads = absorb_threads(later);
  const auto first_event = static_cast<EventIndex>(trace_.events.size());
  const std::vector<std::int32_t> inputs_rows =
      arg_texts_.op_inputs.absorb(later.arg_texts_.op_inputs, part, strings, trace_);
  const AbsorbMaps maps{strings,
                        threads,
                        inputs_rows,
                        static_cast<std::int32_t>(trace_.args.size()),
                        static_cast<std::int32_t>(trace_.device_args.size()),
                        static_cast<std::int32_t>(trace_.collective_args.size())};
  std::array<std::size_t, 2> moved{};
  parallel_for(2, workers, [&](std::size_t half) {
    moved[half] = half == 0 ? absorb_first_half(part, maps) : absorb_second_half(part, maps);
  });
  columns_moved_ += moved[0] + moved[1];
  absorb_begins_and_ends(later, first_event, threads);
  ImportStats& stats = trace_.stats;
  const ImportStats& more = part.stats;
  stats.events_seen += more.events_seen;
  stats.complete_events += more.complete_events;
  stats.instant_events += more.instant_events;
  stats.memory_events += more.memory_events;
  stats.flow_events += more.flow_events;
  stats.counter_events += more.counter_events;
  stats.metadata_events += more.metadata_events;
  stats.async_events += more.async_events;
  stats.other_phase_events += more.other_phase_events;
  stats.invalid_complete_events += more.invalid_complete_events;
  stats.unmatched_begin_end += more.unmatched_begin_end;
  stats.unknown_category_events += more.unknown_category_events;
  stats.any_fractional_ts_literal |= more.any_fractional_ts_literal;
  stats.any_event_without_ts |= more.any_event_without_ts;
  for (const ImportNotes::Note& note : later.notes_.notes()) {
    notes_.add(note.what, note.first_byte_offset, note.events);
  }
}

void TraceBuilder::drop_unmatched_begins() {
  std::size_t unmatched = 0;
  for (const auto& [thread, stack] : open_begins_) unmatched += stack.size();
  if (unmatched == 0) return;
  trace_.stats.unmatched_begin_end += unmatched;
  EventTable& e = trace_.events;
  std::vector<bool> keep(e.size());
  for (std::size_t i = 0; i < e.size(); ++i) keep[i] = e.dur_ns[i] >= 0;
  keep_where(e.start_ns, keep);
  keep_where(e.dur_ns, keep);
  keep_where(e.name, keep);
  keep_where(e.category, keep);
  keep_where(e.event_class, keep);
  keep_where(e.thread, keep);
  keep_where(e.stream, keep);
  keep_where(e.device, keep);
  keep_where(e.correlation, keep);
  keep_where(e.external_id, keep);
  keep_where(e.args_row, keep);
  keep_where(e.source_offset, keep);
  keep_where(e.source_length, keep);
}

void TraceBuilder::sort_events(unsigned threads) {
  EventTable& e = trace_.events;
  std::vector<EventIndex> order = time_order(e.start_ns, e.dur_ns, e.thread, threads);
  if (std::is_sorted(order.begin(), order.end())) return;
  // With two threads the 8-byte columns and the event lengths go on one, the rest on the other,
  // each with its own scratch: the split that measured closest to even (the halves within 2-8 ms
  // of each other on a 1 GiB trace, where the 8-byte columns alone left the other 11 ms behind).
  parallel_for(2, threads, [&](std::size_t half) {
    ReorderScratch scratch;
    if (half == 0) permute(order, scratch, e.start_ns, e.dur_ns);
    visit_event_columns(half, [&](auto& column) { reorder(order, column, scratch); });
  });
}

namespace {

void sort_memory(MemoryTable& memory) {
  std::vector<EventIndex> order(memory.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&memory](EventIndex a, EventIndex b) {
    return memory.time_ns[a] < memory.time_ns[b];
  });
  if (std::is_sorted(order.begin(), order.end())) return;
  ReorderScratch scratch;
  permute(order, scratch, memory.time_ns, memory.bytes, memory.total_allocated,
          memory.total_reserved, memory.address, memory.device_type, memory.device_id,
          memory.thread);
}

std::int64_t integer_or(simdjson::dom::element element, std::string_view key,
                        std::int64_t fallback) {
  std::int64_t value = 0;
  if (element[key].get_int64().get(value) == simdjson::SUCCESS) return value;
  double real = 0;
  if (element[key].get_double().get(real) == simdjson::SUCCESS) {
    // Converting a double outside int64's range is undefined: such a value is no id or size.
    constexpr double kInt64Bound = 9223372036854775808.0;  // 2^63
    if (!(real >= -kInt64Bound && real < kInt64Bound)) return fallback;
    return static_cast<std::int64_t>(real);
  }
  std::string_view text;
  if (element[key].get_string().get(text) == simdjson::SUCCESS) {
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (error == std::errc() && end == text.data() + text.size()) return parsed;
  }
  return fallback;
}

Status read_device_properties(const std::string& raw, std::vector<DeviceProperties>& out) {
  if (raw.empty()) return Done{};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto code = parser.parse(raw).get(root)) {
    return make_error(ErrorKind::kNotJson, std::string("deviceProperties is not valid JSON: ") +
                                               simdjson::error_message(code));
  }
  simdjson::dom::array devices;
  if (root.get_array().get(devices))
    return make_error(ErrorKind::kNotTrace, "deviceProperties is not an array");
  for (simdjson::dom::element device : devices) {
    if (!device.is_object()) continue;
    DeviceProperties properties;
    properties.id = static_cast<std::int32_t>(integer_or(device, "id", -1));
    std::string_view name;
    if (device["name"].get_string().get(name) == simdjson::SUCCESS) properties.name = name;
    properties.total_global_memory = integer_or(device, "totalGlobalMem", kAbsent);
    properties.compute_major = static_cast<std::int32_t>(integer_or(device, "computeMajor", -1));
    properties.compute_minor = static_cast<std::int32_t>(integer_or(device, "computeMinor", -1));
    properties.num_sms = static_cast<std::int32_t>(integer_or(device, "numSms", -1));
    properties.max_threads_per_multiprocessor =
        static_cast<std::int32_t>(integer_or(device, "maxThreadsPerMultiprocessor", -1));
    out.push_back(std::move(properties));
  }
  return Done{};
}

Status read_distributed_info(const std::string& raw, DistributedInfo& out) {
  if (raw.empty()) return Done{};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto code = parser.parse(raw).get(root)) {
    return make_error(ErrorKind::kNotJson, std::string("distributedInfo is not valid JSON: ") +
                                               simdjson::error_message(code));
  }
  if (!root.is_object()) return Done{};  // `null` or other: no information
  std::string_view backend;
  if (root["backend"].get_string().get(backend) == simdjson::SUCCESS) out.backend = backend;
  out.rank = integer_or(root, "rank", kAbsent);
  out.world_size = integer_or(root, "world_size", kAbsent);
  return Done{};
}

// One count of `stepscope_host`: absent when missing; absent and noted when not an integer or
// below `minimum` (a count of 0 cores or threads would divide by zero downstream).
std::int64_t host_count(simdjson::dom::object host, std::string_view key, std::int64_t minimum,
                        ImportNotes& notes, std::uint64_t offset) {
  simdjson::dom::element value;
  if (host[key].get(value) != simdjson::SUCCESS || value.is_null()) return kAbsent;
  std::int64_t count = 0;
  if (value.get_int64().get(count) == simdjson::SUCCESS && count >= minimum) return count;
  notes.add("stepscope_host." + std::string(key) +
                " is not an integer >= " + std::to_string(minimum) + ", treated as absent",
            offset);
  return kAbsent;
}

// The host conditions stepscope.torch.profile records (docs/stepscope-host.md).
// Optional data: anything unusable is noted and left absent, never an error.
void read_host_conditions(const std::string& raw, std::uint64_t offset, ImportNotes& notes,
                          std::optional<HostConditions>& out) {
  if (raw.empty()) return;
  simdjson::dom::parser parser;
  simdjson::dom::object host;
  if (parser.parse(raw).get(host) != simdjson::SUCCESS) {
    notes.add("stepscope_host is not a JSON object, ignored", offset);
    return;
  }
  HostConditions conditions;
  conditions.cores_available = host_count(host, "cores_available", 1, notes, offset);
  conditions.cpu_count = host_count(host, "cpu_count", 1, notes, offset);
  conditions.intra_op_threads = host_count(host, "intra_op_threads", 1, notes, offset);
  conditions.inter_op_threads = host_count(host, "inter_op_threads", 1, notes, offset);
  conditions.local_processes = host_count(host, "local_processes", 1, notes, offset);
  conditions.dataloader_workers = host_count(host, "dataloader_workers", 0, notes, offset);
  simdjson::dom::element source;
  if (host["local_processes_source"].get(source) == simdjson::SUCCESS && !source.is_null()) {
    std::string_view text;
    if (source.get_string().get(text) == simdjson::SUCCESS) {
      conditions.local_processes_source = text;
    } else {
      notes.add("stepscope_host.local_processes_source is not a string, treated as absent", offset);
    }
  }
  simdjson::dom::element input_functions;
  if (host["input_functions"].get(input_functions) == simdjson::SUCCESS &&
      !input_functions.is_null()) {
    conditions.input_sampling = read_input_sampling(input_functions, notes, offset);
  }
  out = std::move(conditions);
}

std::int64_t scalar_integer(const std::string& raw) {
  std::string_view text = raw;
  if (text.size() >= 2 && text.front() == '"') text = text.substr(1, text.size() - 2);
  std::int64_t value = kAbsent;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace

Status TraceBuilder::finish(const TopLevelFields& top_level, unsigned threads) {
  if (top_level.unterminated_array_at) {
    notes_.add("the event array has no closing ']' (accepted, as Chrome and Perfetto do)",
               *top_level.unterminated_array_at);
  }
  STEPSCOPE_TRY(read_device_properties(top_level.device_properties, trace_.devices));
  if (Status s = read_distributed_info(top_level.distributed_info, trace_.distributed); !s) {
    return s;
  }
  read_host_conditions(top_level.stepscope_host, top_level.stepscope_host_offset, notes_,
                       trace_.host);
  trace_.schema_version = scalar_integer(top_level.schema_version);
  trace_.base_time_ns = scalar_integer(top_level.base_time_nanoseconds);
  std::string_view unit = top_level.display_time_unit;
  if (unit.size() >= 2 && unit.front() == '"') unit = unit.substr(1, unit.size() - 2);
  trace_.display_time_unit = std::string(unit);

  drop_unmatched_begins();
  for (const OpInputsTable::Unreadable& texts : arg_texts_.op_inputs.unreadable(trace_)) {
    notes_.add(texts.what, texts.first_offset, texts.events);
  }
  sort_events(threads);
  sort_memory(trace_.memory);
  link_events(trace_, notes_, threads);
  return Done{};
}

}  // namespace stepscope::kineto
