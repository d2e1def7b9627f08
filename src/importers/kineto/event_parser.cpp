#include "importers/kineto/event_parser.h"

#include "importers/kineto/arg_keys.h"
#include "importers/kineto/byte_scan.h"
#include "importers/kineto/fast_event_parser.h"
#include "importers/kineto/json_unescape.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <memory>
#include <optional>
#include <string>

namespace stepscope::kineto {

namespace od = simdjson::ondemand;

namespace {

// Errors carry the field path; the caller adds the file and the event's byte offset.
Error field_error(std::string_view field, std::string_view what) {
  return make_error(ErrorKind::kNotTrace,
                    "field \"" + std::string(field) + "\": " + std::string(what));
}

Error simdjson_failure(std::string_view field, simdjson::error_code code) {
  if (code == simdjson::NUMBER_OUT_OF_RANGE) {
    return field_error(field, "number out of range");
  }
  if (code == simdjson::INCORRECT_TYPE) return field_error(field, "wrong type");
  Error error = field_error(field, simdjson::error_message(code));
  error.kind = ErrorKind::kNotJson;  // any other simdjson failure: the bytes are not valid JSON
  return error;
}

// Integers may be written as `12` or `12.0`; anything else of type number is refused.
Result<std::int64_t> read_integer(od::value value, std::string_view field) {
  std::int64_t integer = 0;
  auto code = value.get_int64().get(integer);
  if (!code) return integer;
  od::json_type type;
  if (auto type_code = value.type().get(type)) return simdjson_failure(field, type_code);
  if (type != od::json_type::number) return field_error(field, "expected a number");
  if (code == simdjson::INCORRECT_TYPE) {  // a double literal
    double real = 0;
    if (auto double_code = value.get_double().get(real)) {
      return simdjson_failure(field, double_code);
    }
    if (std::isfinite(real) && std::trunc(real) == real && std::fabs(real) < 9.0e18) {
      return static_cast<std::int64_t>(real);
    }
    return field_error(field, "expected an integer");
  }
  if (code == simdjson::NUMBER_OUT_OF_RANGE) {  // maybe a uint64 such as 4294967295 * 2^k
    std::uint64_t unsigned_value = 0;
    if (!value.get_uint64().get(unsigned_value) && unsigned_value <= INT64_MAX) {
      return static_cast<std::int64_t>(unsigned_value);
    }
  }
  return simdjson_failure(field, code);
}

// simdjson refuses a lone surrogate (`\ud800` unpaired) with STRING_ERROR; such a string is
// unescaped here with U+FFFD in its place and noted, rather than rejecting the trace.
Result<std::string_view> read_string(od::value value, const char* field, RawEvent& event) {
  std::string_view text;
  const auto code = value.get_string().get(text);
  if (!code) return text;
  if (code != simdjson::STRING_ERROR || event.repaired_strings == nullptr) {
    return simdjson_failure(field, code);
  }
  std::string_view raw = value.raw_json_token();
  std::string repaired;
  std::size_t at = 0;
  std::size_t replaced = 0;
  if (!unescape_json_string(raw, at, repaired, replaced) || replaced == 0) {
    return simdjson_failure(field, code);
  }
  event.tolerate(field, /*parsed=*/true, /*repaired=*/true);  // kept: the value is used
  return std::string_view(event.repaired_strings->emplace_back(std::move(repaired)));
}

// The raw JSON text of any value (arrays of shapes are kept as written).
Result<std::string_view> read_raw(od::value value, std::string_view field) {
  od::json_type type;
  if (auto code = value.type().get(type)) return simdjson_failure(field, code);
  std::string_view raw;
  simdjson::error_code code = simdjson::SUCCESS;
  if (type == od::json_type::array) {
    od::array array;
    code = value.get_array().get(array);
    if (!code) code = array.raw_json().get(raw);
  } else if (type == od::json_type::object) {
    od::object object;
    code = value.get_object().get(object);
    if (!code) code = object.raw_json().get(raw);
  } else {
    raw = value.raw_json_token();
  }
  if (code) return simdjson_failure(field, code);
  // simdjson's raw_json() of a container runs on over the whitespace that follows it.
  while (!raw.empty() && is_json_space(raw.back())) raw.remove_suffix(1);
  return raw;
}

Result<std::string_view> read_number_literal(od::value value, std::string_view field) {
  od::json_type type;
  if (auto code = value.type().get(type)) return simdjson_failure(field, code);
  if (type != od::json_type::number) return field_error(field, "expected a number");
  std::string_view raw = value.raw_json_token();
  while (!raw.empty() && is_json_space(raw.back())) raw.remove_suffix(1);
  return raw;
}

Result<RawId> read_id(od::value value, const char* field, RawEvent& event) {
  od::json_type type;
  if (auto code = value.type().get(type)) return simdjson_failure(field, code);
  RawId id;
  if (type != od::json_type::string && type != od::json_type::number) {
    event.tolerate(field, false);
    return id;  // absent
  }
  id.present = true;
  if (type == od::json_type::string) {
    STEPSCOPE_ASSIGN_OR_RETURN(const std::string_view text, read_string(value, field, event));
    id.text = text;
    return id;
  }
  STEPSCOPE_ASSIGN_OR_RETURN(const std::string_view literal, read_number_literal(value, field));
  id.text = literal;
  id.is_number = true;
  const char* end = literal.data() + literal.size();
  if (auto [stop, error] = std::from_chars(literal.data(), end, id.number);
      error == std::errc() && stop == end) {
    return id;  // the usual integer, without a second pass through simdjson
  }
  STEPSCOPE_ASSIGN_OR_RETURN(const std::int64_t number, read_integer(value, field));
  id.number = number;
  return id;
}

// Forgiving where the data is optional (ROCm writes some numeric args as strings): a string
// holding a JSON number is parsed, any other wrong type is treated as absent, and either is
// recorded in the event for the import notes. Malformed JSON stays an error.
bool is_json_number(std::string_view text) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > from;
  };
  if (i < text.size() && text[i] == '-') ++i;
  if (i < text.size() && text[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == text.size() && !text.empty();
}

std::optional<std::string_view> numeric_string(od::value value) {
  std::string_view text;
  if (value.get_string().get(text)) return std::nullopt;
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!is_json_number(text)) return std::nullopt;
  return text;
}

std::optional<std::int64_t> integer_from_text(std::string_view text) {
  std::int64_t integer = 0;
  const char* end = text.data() + text.size();
  if (auto [stop, error] = std::from_chars(text.data(), end, integer);
      error == std::errc() && stop == end) {
    return integer;
  }
  double real = 0;
  if (auto [stop, error] = std::from_chars(text.data(), end, real);
      error == std::errc() && stop == end && std::isfinite(real) && std::trunc(real) == real &&
      std::fabs(real) < 9.0e18) {
    return static_cast<std::int64_t>(real);
  }
  return std::nullopt;
}

Result<od::json_type> type_of(od::value value, std::string_view field) {
  od::json_type type;
  if (auto code = value.type().get(type)) return simdjson_failure(field, code);
  return type;
}

template <typename T>
Status lenient_integer(od::value value, const char* field, T& target, RawEvent& out) {
  STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value, field));
  if (type == od::json_type::number) {
    double real = 0;  // a malformed number is malformed JSON: still an error
    if (auto code = value.get_double().get(real)) return simdjson_failure(field, code);
    Result<std::int64_t> integer = read_integer(value, field);
    if (integer) {
      target = static_cast<T>(*integer);
    } else {
      out.tolerate(field, false);
    }
    return Done{};
  }
  if (type == od::json_type::string) {
    if (auto text = numeric_string(value)) {
      if (auto integer = integer_from_text(*text)) {
        target = static_cast<T>(*integer);
        out.tolerate(field, true);
        return Done{};
      }
    }
  }
  out.tolerate(field, false);
  return Done{};
}

Status lenient_real(od::value value, const char* field, double& target, RawEvent& out) {
  STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value, field));
  if (type == od::json_type::number) {
    if (auto code = value.get_double().get(target)) return simdjson_failure(field, code);
    return Done{};
  }
  if (type == od::json_type::string) {
    if (auto text = numeric_string(value)) {
      double real = 0;
      const char* end = text->data() + text->size();
      if (auto [stop, error] = std::from_chars(text->data(), end, real);
          error == std::errc() && stop == end) {
        target = real;
        out.tolerate(field, true);
        return Done{};
      }
    }
  }
  out.tolerate(field, false);
  return Done{};
}

Status lenient_string(od::value value, const char* field, std::string_view& target, RawEvent& out) {
  STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value, field));
  if (type != od::json_type::string) {
    out.tolerate(field, false);
    return Done{};
  }
  STEPSCOPE_ASSIGN_OR_RETURN(target, read_string(value, field, out));
  return Done{};
}

// `ts` and `dur`: a number, or a string holding one (parsed, noted); else absent, which makes
// a complete event unusable (skipped and counted by the builder).
Status lenient_time(od::value value, const char* field, std::string_view& literal, bool& has,
                    RawEvent& out) {
  STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value, field));
  if (type == od::json_type::number) {
    STEPSCOPE_ASSIGN_OR_RETURN(literal, read_number_literal(value, field));
    has = true;
    return Done{};
  }
  if (type == od::json_type::string) {
    if (auto text = numeric_string(value)) {
      literal = *text;
      has = true;
      out.tolerate(field, true);
      return Done{};
    }
  }
  out.tolerate(field, false);
  return Done{};
}

// `grid` and `block` are [x, y, z] on kernels; Inductor writes a string such as "grid(100,)" on
// its cpu_op events, which is not a launch shape: ignored.
Status read_triple(od::value value, const char* field, std::int32_t (&triple)[3], RawEvent& event) {
  od::json_type type;
  if (auto code = value.type().get(type)) return simdjson_failure(field, code);
  if (type != od::json_type::array) return Done{};
  od::array array;
  if (auto code = value.get_array().get(array)) return simdjson_failure(field, code);
  std::int32_t read[3] = {triple[0], triple[1], triple[2]};
  bool usable = true;
  int index = 0;
  for (auto element : array) {
    od::value item;
    if (auto code = element.get(item)) return simdjson_failure(field, code);
    std::int64_t number = 0;
    const std::uint8_t before = event.tolerated_count;
    STEPSCOPE_TRY(lenient_integer(item, field, number, event));
    if (event.tolerated_count != before && !event.tolerated[before].parsed) usable = false;
    if (index < 3) read[index] = static_cast<std::int32_t>(number);
    ++index;
  }
  if (usable) std::copy(read, read + 3, triple);
  return Done{};
}

#define STEPSCOPE_TRY_ASSIGN(target, expression)     \
  do {                                               \
    auto result_ = (expression);                     \
    if (!result_) return std::move(result_).error(); \
    (target) = *result_;                             \
  } while (false)

// The key's text as written (without unescaping): a key with escapes is never one of ours.
std::string_view key_text(const od::raw_json_string& key) {
  const char* begin = key.raw();
  const char* end = static_cast<const char*>(rawmemchr(begin, '"'));
  return {begin, static_cast<std::size_t>(end - begin)};
}

Status read_args(od::object args, RawEvent& out);

// Reads one value of each kind the keys of arg_keys.h hold, into where the key's value goes:
// forgiving where the data is optional (see lenient_integer), an error where the JSON is broken.
class ValueReader {
 public:
  ValueReader(od::value value, RawEvent& out) : value_(value), out_(out) {}

  Status operator()(value_kind::Skip /*kind*/, RawEvent& /*event*/, const char* /*field*/) {
    return Done{};  // On-Demand skips the unread value
  }
  // A phase that is not a one-letter string leaves the event without one: the builder skips
  // and counts it.
  Status operator()(value_kind::Phase /*kind*/, char& phase, const char* field) {
    std::string_view text;
    STEPSCOPE_TRY(lenient_string(value_, field, text, out_));
    if (text.size() == 1) {
      phase = text[0];
    } else if (!text.empty()) {
      out_.tolerate(field, false);
    }
    return Done{};
  }
  Status operator()(value_kind::String /*kind*/, std::string_view& text, const char* field) {
    return lenient_string(value_, field, text, out_);
  }
  Status operator()(value_kind::Id /*kind*/, RawId& id, const char* field) {
    STEPSCOPE_TRY_ASSIGN(id, read_id(value_, field, out_));
    return Done{};
  }
  Status operator()(value_kind::Time /*kind*/, TimeSlot time, const char* field) {
    return lenient_time(value_, field, time.literal, time.present, out_);
  }
  Status operator()(value_kind::FlowId /*kind*/, std::int64_t& id, const char* field) {
    STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value_, field));
    if (type == od::json_type::number) {
      STEPSCOPE_TRY_ASSIGN(id, read_integer(value_, field));
    } else if (type == od::json_type::string) {
      std::string_view text;
      STEPSCOPE_TRY_ASSIGN(text, read_string(value_, field, out_));
      id = static_cast<std::int64_t>(std::hash<std::string_view>{}(text) >> 1);
    }
    return Done{};
  }
  Status operator()(value_kind::Args /*kind*/, RawEvent& event, const char* field) {
    STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value_, field));
    if (type != od::json_type::object) {  // null or a list: no args
      event.tolerate(field, false);
      return Done{};
    }
    return read_args(value_.get_object().value_unsafe(), event);
  }
  template <typename Integer>
  Status operator()(value_kind::Integer /*kind*/, Integer& value, const char* field) {
    return lenient_integer(value_, field, value, out_);
  }
  Status operator()(value_kind::IntegerIfNumber /*kind*/, std::int64_t& value, const char* field) {
    STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value_, field));
    if (type != od::json_type::number) return Done{};
    return lenient_integer(value_, field, value, out_);
  }
  Status operator()(value_kind::Real /*kind*/, double& value, const char* field) {
    return lenient_real(value_, field, value, out_);
  }
  Status operator()(value_kind::Triple /*kind*/, std::int32_t (&triple)[3], const char* field) {
    return read_triple(value_, field, triple, out_);
  }
  Status operator()(value_kind::RawJson /*kind*/, std::string_view& raw, const char* field) {
    STEPSCOPE_TRY_ASSIGN(raw, read_raw(value_, field));
    return Done{};
  }
  Status operator()(value_kind::StringIfString /*kind*/, std::string_view& text,
                    const char* field) {
    STEPSCOPE_ASSIGN_OR_RETURN(const od::json_type type, type_of(value_, field));
    if (type == od::json_type::string) STEPSCOPE_TRY_ASSIGN(text, read_string(value_, field, out_));
    return Done{};
  }
  Status operator()(value_kind::Address /*kind*/, RawMemory& memory, const char* field) {
    std::uint64_t unsigned_address = 0;
    if (!value_.get_uint64().get(unsigned_address)) {
      memory.address = unsigned_address;
      memory.has_address = true;
      return Done{};
    }
    std::int64_t address = 0;
    const std::uint8_t before = out_.tolerated_count;
    STEPSCOPE_TRY(lenient_integer(value_, field, address, out_));
    if (out_.tolerated_count != before && !out_.tolerated[before].parsed) return Done{};
    memory.address = static_cast<std::uint64_t>(address);
    memory.has_address = true;
    return Done{};
  }

 private:
  od::value value_;
  RawEvent& out_;
};

// Other args are skipped here; they stay reachable through the event's byte range.
Status read_args(od::object args, RawEvent& out) {
  for (auto field : args) {
    od::raw_json_string key;
    if (auto code = field.key().get(key)) return simdjson_failure("args", code);
    const ArgKey which = classify_arg_key(key_text(key));
    if (which == ArgKey::kOther) continue;  // On-Demand skips the unread value
    od::value value;
    if (auto code = field.value().get(value)) return simdjson_failure("args", code);
    ValueReader reader(value, out);
    STEPSCOPE_TRY(store_arg_value(which, out, reader));
  }
  return Done{};
}

// The event object; fields may come in any order, so args are decoded into RawEvent and
// interpreted by the builder once the phase is known.
Status read_event(od::object object, RawEvent& out) {
  for (auto field : object) {
    od::raw_json_string key;
    if (auto code = field.key().get(key)) return simdjson_failure("event", code);
    od::value value;
    if (auto code = field.value().get(value)) return simdjson_failure("event", code);
    ValueReader reader(value, out);
    STEPSCOPE_TRY(store_event_value(classify_event_key(key_text(key)), out, reader));
  }
  return Done{};
}

}  // namespace

struct EventParser::Impl {
  od::parser parser;
  LearnedKeyOrders key_orders;  // kept from event to event: writers repeat their key order
  std::deque<std::string> repaired_strings;  // the current event's (read_string)
};

EventParser::EventParser(bool fast_path) : impl_(std::make_unique<Impl>()), fast_path_(fast_path) {}
EventParser::~EventParser() = default;

Status EventParser::parse(const char* text, const EventSlice& slice, std::size_t capacity,
                          RawEvent& out) {
  std::construct_at(&out);  // in place: no temporary copied over it
  if (fast_path_ &&
      fast_parse_event(text + slice.offset, slice.length, out, slice.ascii, &impl_->key_orders)) {
    out.file_offset = slice.file_offset;
    out.length = slice.length;
    return Done{};
  }
  out = RawEvent{};  // declined: simdjson parses, validates and explains
  impl_->repaired_strings.clear();
  out.repaired_strings = &impl_->repaired_strings;
  out.file_offset = slice.file_offset;
  out.length = slice.length;
  od::document document;
  if (auto code =
          impl_->parser.iterate(text + slice.offset, slice.length, capacity).get(document)) {
    return make_error(ErrorKind::kNotJson,
                      std::string("invalid JSON in event: ") + simdjson::error_message(code),
                      slice.file_offset);
  }
  od::object object;
  if (auto code = document.get_object().get(object)) {
    return make_error(ErrorKind::kNotJson,
                      std::string("invalid JSON in event: ") + simdjson::error_message(code),
                      slice.file_offset);
  }
  Status status = read_event(object, out);
  if (!status) {
    Error error = std::move(status).error();
    error.message = "in the event starting here: " + error.message;
    error.byte_offset = slice.file_offset;
    return error;
  }
  return Done{};
}

}  // namespace stepscope::kineto
