// One trace event as read from JSON, before it is stored in the columnar Trace. String views
// point into the parser's buffers and are valid only until the next event is parsed.
#pragma once

#include <cstdint>
#include <string_view>

#include "stepscope/trace.h"

namespace stepscope::kineto {

// `pid` and `tid` may be JSON numbers or strings.
struct RawId {
  std::string_view text;  // the number's literal or the string's contents
  std::int64_t number = kAbsent;
  bool is_number = false;
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

struct RawEvent {
  char phase = 0;
  std::string_view name;
  std::string_view category;
  std::string_view ts_literal;
  std::string_view dur_literal;
  bool has_ts = false;
  bool has_dur = false;
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
  EventArgs numeric_args;          // the numeric part; string ids are filled by the builder
  bool has_event_args = false;
  RawMemory memory;
  std::uint64_t file_offset = 0;
  std::uint32_t length = 0;
};

}  // namespace stepscope::kineto
