// One trace event as read from JSON, before it is stored in the columnar Trace. String views
// point into the parser's buffers and are valid only until the next event is parsed.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>

#include "stepscope/trace.h"

namespace stepscope::kineto {

// `pid` and `tid` may be JSON numbers or strings.
struct RawId {
  std::string_view text;  // the number's literal or the string's contents
  std::int64_t number = kAbsent;
  bool is_number = false;
  // A number written in plain decimal (digits, a leading '-' at most, no leading zero), as the
  // fast parser reads them: equal numbers so written are equal texts when their lengths are
  // ("-0" and "0" are not).
  bool plain_decimal = false;
  bool present = false;
};

struct RawMemory {
  std::uint64_t address = 0;
  bool has_address = false;
  std::int64_t bytes = 0;
  std::int64_t total_allocated = kAbsent;
  std::int64_t total_reserved = kAbsent;
  std::int64_t device_type = 0;
  std::int64_t device_id = -1;
};

// The numeric args as parsed, every field on one struct; the builder splits them into the
// trace's EventArgs, DeviceArgs and CollectiveArgs rows.
struct RawArgs {
  std::int64_t bytes = kAbsent;
  double blocks_per_sm = -1;
  double occupancy_percent = -1;
  double warps_per_sm = -1;
  std::int32_t grid[3] = {0, 0, 0};
  std::int32_t block[3] = {0, 0, 0};
  std::int32_t registers_per_thread = -1;
  std::int64_t shared_memory = kAbsent;
  std::int64_t in_msg_nelems = kAbsent;
  std::int64_t out_msg_nelems = kAbsent;
  std::int64_t group_size = kAbsent;
  std::int64_t sequence_number = kAbsent;
  std::int64_t flops = kAbsent;
};

struct RawEvent {
  char phase = 0;
  std::string_view name;
  std::string_view category;
  std::string_view ts_literal;
  std::string_view dur_literal;
  bool has_ts = false;
  bool has_dur = false;
  // Times the fast parser already converted (plain microseconds with at most three decimals);
  // otherwise the builder converts the literals.
  struct Time {
    std::int64_t ns = 0;
    bool converted = false;
    bool fractional = false;  // the literal had a decimal point
  };
  Time ts;
  Time dur;
  RawId pid;
  RawId tid;
  std::int64_t flow_id = kAbsent;
  // args
  std::int64_t stream = kAbsent;
  std::int64_t device = kAbsent;
  std::int64_t correlation = kAbsent;
  std::int64_t external_id = kAbsent;
  std::string_view input_dims;
  std::string_view input_types;
  std::string_view concrete_inputs;
  std::string_view collective_name;
  std::string_view dtype;
  std::string_view process_group_name;
  std::string_view metadata_name;  // args.name of `M` events
  RawArgs numeric_args;            // the numeric part; string ids are filled by the builder
  bool has_event_args = false;
  RawMemory memory;
  // Fields of the wrong type that were tolerated rather than refused (the builder turns them
  // into import notes): the field's name, and whether it was a numeric string parsed as a
  // number or a value ignored. Only the simdjson path fills them (the fast path declines).
  struct Tolerated {
    const char* field = nullptr;
    bool parsed = false;
    bool repaired = false;  // a string with lone surrogates, kept with U+FFFD in their place
                            // (`parsed` too: the value is used)
  };
  static constexpr std::size_t kMaxTolerated = 8;
  Tolerated tolerated[kMaxTolerated] = {};
  std::uint8_t tolerated_count = 0;
  void tolerate(const char* field, bool parsed, bool repaired = false) {
    if (tolerated_count < kMaxTolerated) tolerated[tolerated_count++] = {field, parsed, repaired};
  }
  // Where repaired strings live until the next event (the parser's, as simdjson's buffer is for
  // the strings it unescapes); null on the fast path, which declines escapes.
  std::deque<std::string>* repaired_strings = nullptr;
  std::uint64_t file_offset = 0;
  std::uint32_t length = 0;
};

}  // namespace stepscope::kineto
