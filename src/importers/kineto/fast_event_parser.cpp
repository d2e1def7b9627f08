#include "importers/kineto/fast_event_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <type_traits>

#include "importers/kineto/arg_keys.h"
#include "importers/kineto/byte_scan.h"
#include "importers/kineto/container_scanner.h"
#include "importers/kineto/decimal.h"
#include "importers/kineto/digit_scan.h"
#include "importers/kineto/key_order.h"

namespace stepscope::kineto {

namespace {

bool is_number_char(char c) {
  return is_ascii_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20; }
bool is_ascii(char c) { return static_cast<unsigned char>(c) < 0x80; }

const char* skip_digits(const char* p, const char* end) {
  for (;;) {
    const std::size_t count = leading_digits(p, end);
    p += count;
    if (count < kDigitBlock) return p;
  }
}

// A cursor over one event's text; every read either succeeds or declines the whole event.
class Cursor {
 public:
  // `ascii_only`: a string holding a byte above 0x7F declines the event (its UTF-8 unchecked).
  Cursor(const char* text, const char* end, bool ascii_only = false)
      : at_(text), end_(end), ascii_only_(ascii_only) {}

  void skip_spaces() { at_ = skip_json_space(at_, end_); }
  bool consume(char c) {
    skip_spaces();
    if (at_ >= end_ || *at_ != c) return false;
    ++at_;
    return true;
  }
  // The ':' after a key, which writers put right after the closing quote.
  bool colon() {
    if (at_ < end_ && *at_ == ':') {
      ++at_;
      return true;
    }
    return consume(':');
  }
  // The key `order` remembers at `position`, when the text holds its bytes next (whitespace
  // included): consumed, with its meaning. Otherwise the cursor stays, for the general path.
  template <typename Meaning>
  bool remembered_key(const KeyOrder<Meaning>* order, std::size_t position, Meaning& meaning) {
    if (order == nullptr) return false;
    const std::size_t length = order->match(position, at_, meaning);  // 64 readable bytes past end_
    if (length == 0 || length > static_cast<std::size_t>(end_ - at_)) return false;
    at_ += length;
    return true;
  }
  [[nodiscard]] bool at_space() const { return at_ < end_ && *at_ == ' '; }
  [[nodiscard]] char peek() {
    skip_spaces();
    return at_ < end_ ? *at_ : '\0';
  }
  [[nodiscard]] bool at_end() {
    skip_spaces();
    return at_ == end_;
  }

  // A string's raw contents; `escaped` says whether it holds a backslash. One pass: stops at
  // the closing quote, a backslash (skipping the byte it escapes) or a control character,
  // which JSON forbids in strings (simdjson refuses them too).
  bool string(std::string_view& text, bool& escaped) {
    if (!consume('"')) return false;
    const char* begin = at_;
    escaped = false;
    const char* p = begin;
    for (;;) {
      p = find_string_special(p, end_, ascii_only_);
      if (p == end_) return false;
      if (*p == '"') {
        text = std::string_view(begin, static_cast<std::size_t>(p - begin));
        at_ = p + 1;
        return true;
      }
      if (*p != '\\') return false;  // a control character, or not ASCII
      escaped = true;
      if (end_ - p < 2 || is_control(p[1]) || (ascii_only_ && !is_ascii(p[1]))) return false;
      p += 2;
    }
  }
  // A string the importer keeps: declined when it needs unescaping.
  bool plain_string(std::string_view& text) {
    bool escaped = false;
    return string(text, escaped) && !escaped;
  }
  // A JSON number, its grammar checked while it is read (no second pass over the digits).
  bool number_token(std::string_view& token) {
    skip_spaces();
    const char* p = at_;
    if (p < end_ && *p == '-') ++p;
    if (p >= end_ || !is_ascii_digit(*p)) return false;
    if (*p == '0') {
      ++p;  // no leading zeros: "01" runs into the check below
    } else {
      p = skip_digits(p);
    }
    if (p < end_ && *p == '.') {
      const char* fraction = ++p;
      p = skip_digits(p);
      if (p == fraction) return false;
    }
    if (p < end_ && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end_ && (*p == '+' || *p == '-')) ++p;
      const char* exponent = p;
      p = skip_digits(p);
      if (p == exponent) return false;
    }
    // A number that runs on into number characters ("01", "1.2.3", "1-2") is malformed.
    if (p < end_ && is_number_char(*p)) return false;
    token = std::string_view(at_, static_cast<std::size_t>(p - at_));
    at_ = p;
    return true;
  }
  const char* skip_digits(const char* p) const { return kineto::skip_digits(p, end_); }

  // Most integers in a trace are short and plain: count their digits and convert them at once.
  // Anything else (a fraction, an exponent, a leading zero, more than 16 digits) takes the
  // general path, which checks the grammar and the range.
  bool integer(std::int64_t& value) {
    skip_spaces();
    const bool negative = at_ < end_ && *at_ == '-';
    const char* digits = at_ + (negative ? 1 : 0);
    const std::size_t count = leading_digits(digits, end_);
    const char* p = digits + count;
    const bool plain =
        count > 0 && !(p < end_ && is_number_char(*p)) && (*digits != '0' || count == 1);
    if (!plain) return general_integer(value);
    const auto magnitude = static_cast<std::int64_t>(digits_value(digits, count));
    value = negative ? -magnitude : magnitude;
    at_ = p;
    return true;
  }
  // A time in microseconds: its literal, and its value in nanoseconds when it is plain (up to
  // sixteen integer digits and three decimals, read in one pass). Other numbers keep only the
  // literal, which the builder converts exactly.
  bool time(std::string_view& literal, RawEvent::Time& time) {
    constexpr std::size_t kMaxDecimals = 3;
    time = {};  // a repeated key: the last value counts, converted or not
    skip_spaces();
    // Up to kDigitBlock (16) integer digits; a 17th runs into the number-character check below.
    const std::size_t digits = leading_digits(at_, end_);
    const char* p = at_ + digits;
    std::size_t decimals = 0;
    bool point = false;
    if (p < end_ && *p == '.') {
      point = true;
      ++p;
      // One decimal more than a plain time may have, so that a fourth fails the check below.
      decimals = std::min(leading_digits(p, end_), kMaxDecimals + 1);
      p += decimals;
    }
    const bool plain = digits > 0 && (*at_ != '0' || digits == 1) && decimals <= kMaxDecimals &&
                       (decimals > 0 || !point) && !(p < end_ && is_number_char(*p));
    const auto micros = plain ? static_cast<std::int64_t>(digits_value(at_, digits)) : 0;
    if (!plain || micros > kMaxPlainMicroseconds) return number_token(literal);
    const auto fraction =
        decimals > 0 ? static_cast<std::int64_t>(digits_value(p - decimals, decimals)) : 0;
    time.ns = plain_microseconds_to_ns(micros, fraction, decimals);
    time.converted = true;
    time.fractional = decimals > 0;
    literal = std::string_view(at_, static_cast<std::size_t>(p - at_));
    at_ = p;
    return true;
  }
  [[nodiscard]] const char* position() const { return at_; }
  bool real(double& value) {
    // Long literals (huge exponents, dozens of digits) are left to simdjson's number parser,
    // which refuses some that from_chars would read.
    constexpr std::size_t kLongestPlainReal = 24;
    std::string_view token;
    constexpr std::size_t kLongestExponent = 3;
    if (!number_token(token) || token.size() > kLongestPlainReal) return false;
    if (const std::size_t e = token.find_first_of("eE"); e != std::string_view::npos) {
      std::string_view exponent = token.substr(e + 1);
      if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-'))
        exponent.remove_prefix(1);
      if (exponent.size() > kLongestExponent) return false;
    }
    const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    return error == std::errc() && stop == token.data() + token.size();
  }
  // A container's raw text, brackets included, after checking its whole grammar.
  bool container(std::string_view& raw) {
    skip_spaces();
    if (at_ >= end_ || (*at_ != '[' && *at_ != '{')) return false;
    const char* begin = at_;
    if (!skip_value()) return false;
    raw = std::string_view(begin, static_cast<std::size_t>(at_ - begin));
    return true;
  }
  bool literal(std::string_view word) {
    skip_spaces();
    if (static_cast<std::size_t>(end_ - at_) < word.size() ||
        std::memcmp(at_, word.data(), word.size()) != 0) {
      return false;
    }
    at_ += word.size();
    return true;
  }
  // Skips any value, checking its grammar as a JSON parser would (simdjson refuses what this
  // refuses, so the fast path never accepts an event simdjson would not). A loop rather than
  // recursion, as shape lists nest: each open container is one bit, set for an object.
  bool skip_value() {
    const char first = peek();
    if (first != '{' && first != '[') return skip_scalar(first);  // most skipped values
    return (first == '[' && skip_list_of_plain_values()) || skip_container();
  }

 private:
  // The lists every op carries (`Input Dims`, `Input type`): arrays, nested, of integers and of
  // strings without escapes, skipped in one tight loop. Anything else (a fraction, an escape,
  // an object, a literal, broken grammar) leaves the cursor where it was and answers false, for
  // skip_container(), which checks it fully; this loop accepts only what that one accepts.
  bool skip_list_of_plain_values() {
    const char* p = at_;  // at '['
    std::size_t depth = 0;
    for (;;) {
      // At an opening bracket, or at the value after a comma.
      if (p < end_ && *p == '[') {
        if (++depth > kMaxContainerDepth) return false;
        p = skip_json_space(p + 1, end_);
        if (p < end_ && *p == ']') {
          ++p;
          --depth;
        } else {
          continue;  // to the first element
        }
      } else if (p < end_ && *p == '"') {
        p = find_string_special(p + 1, end_, ascii_only_);
        if (p == end_ || *p != '"') return false;
        ++p;
      } else {
        p = plain_integer_end(p);  // a fraction, an exponent or "01" goes to the general loop
        if (p == nullptr) return false;
      }
      // After a value: close the lists it ends, or go on to the next element.
      for (;;) {
        if (depth == 0) {
          at_ = p;
          return true;
        }
        p = skip_json_space(p, end_);
        if (p >= end_) return false;
        if (*p == ',') {
          p = skip_json_space(p + 1, end_);
          if (p >= end_) return false;
          break;
        }
        if (*p != ']') return false;
        ++p;
        --depth;
      }
    }
  }

  // The end of the plain integer at `p` (a '-' at most, digits without a leading zero, no
  // fraction or exponent after them), or nullptr when there is none there: of integers, what
  // number_token() accepts, found without building a token.
  [[nodiscard]] const char* plain_integer_end(const char* p) const {
    const char* digits = p + (p < end_ && *p == '-' ? 1 : 0);
    if (digits >= end_ || !is_ascii_digit(*digits)) return nullptr;
    const char* stop = *digits == '0' ? digits + 1 : skip_digits(digits);
    return stop < end_ && is_number_char(*stop) ? nullptr : stop;
  }

  // A container, its grammar checked as skip_value() says.
  bool skip_container() {
    std::uint64_t is_object[(kMaxContainerDepth + 63) / 64] = {};
    std::size_t depth = 0;
    const auto object_at = [&is_object](std::size_t level) {
      return ((is_object[level / 64] >> (level % 64)) & 1U) != 0;
    };
    for (;;) {
      const char c = peek();
      if (c == '{' || c == '[') {
        if (depth == kMaxContainerDepth) return false;
        ++at_;
        const bool object = c == '{';
        const std::uint64_t bit = std::uint64_t{1} << (depth % 64);
        is_object[depth / 64] =
            object ? (is_object[depth / 64] | bit) : (is_object[depth / 64] & ~bit);
        ++depth;
        if (peek() != (object ? '}' : ']')) {
          if (object && !member_key()) return false;
          continue;  // to the first element's value
        }
        ++at_;
        --depth;
      } else if (!skip_scalar(c)) {
        return false;
      }
      // After a value: close the containers it ends, or go on to the next element.
      for (;;) {
        if (depth == 0) return true;
        const bool object = object_at(depth - 1);
        const char next = peek();
        if (next == ',') {
          ++at_;
          if (object && !member_key()) return false;
          break;
        }
        if (next != (object ? '}' : ']')) return false;
        ++at_;
        --depth;
      }
    }
  }

  bool general_integer(std::int64_t& value) {
    std::string_view token;
    if (!number_token(token)) return false;
    const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    return error == std::errc() && stop == token.data() + token.size();
  }
  // `"key":` inside an object being skipped.
  bool member_key() {
    std::string_view key;
    bool escaped = false;
    return string(key, escaped) && consume(':');
  }
  // A string, literal or number; `c` is its first byte.
  bool skip_scalar(char c) {
    switch (c) {
      case '"': {
        std::string_view ignored;
        bool escaped = false;
        return string(ignored, escaped);
      }
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default: {
        // Most skipped numbers are ids and counts, plain integers: no token to build.
        if (const char* stop = plain_integer_end(at_)) {
          at_ = stop;
          return true;
        }
        std::string_view ignored;
        return number_token(ignored);
      }
    }
  }

  const char* at_;
  const char* end_;
  bool ascii_only_;
};

// Reads `{"key": value, ...}`, handing each key's meaning (`classify` of its text; that of an
// escaped key is that of "\\", which means nothing) to `field`, which reads its value.
// `order_now()` gives the KeyOrder that predicts the next key (null: none), which learns from
// each miss.
template <typename Meaning, typename Order, typename Classify, typename Field>
bool object(Cursor& cursor, Order&& order_now, Classify&& classify, Field&& field) {
  if (!cursor.consume('{')) return false;
  if (cursor.peek() == '}') return cursor.consume('}');
  for (std::size_t position = 0;; ++position) {
    KeyOrder<Meaning>* order = order_now();
    Meaning meaning{};
    if (!cursor.remembered_key(order, position, meaning)) {
      const char* start = cursor.position();
      std::string_view key;
      bool escaped = false;
      if (!cursor.string(key, escaped) || !cursor.colon()) return false;
      meaning = classify(escaped ? std::string_view("\\") : key);
      if (order != nullptr && !escaped) {
        const char* end = cursor.position() + (cursor.at_space() ? 1 : 0);
        order->remember(position, std::string_view(start, static_cast<std::size_t>(end - start)),
                        meaning);
      }
    }
    if (!field(meaning)) return false;
    if (cursor.consume(',')) continue;
    return cursor.consume('}');
  }
}

// Reads each kind of value the keys of arg_keys.h hold, into where the key's value goes;
// declines (false) what it cannot be sure of. The field names are simdjson's, for its notes.
class ValueReader {
 public:
  ValueReader(Cursor& cursor, LearnedKeyOrders* orders) : cursor_(cursor), orders_(orders) {}

  bool operator()(value_kind::Skip /*kind*/, RawEvent& /*event*/, const char* /*field*/) {
    return cursor_.skip_value();
  }
  bool operator()(value_kind::Phase /*kind*/, char& phase, const char* /*field*/) {
    std::string_view text;
    if (!cursor_.plain_string(text) || text.size() != 1) return false;
    phase = text[0];
    return true;
  }
  bool operator()(value_kind::String /*kind*/, std::string_view& text, const char* /*field*/) {
    return cursor_.plain_string(text);
  }
  bool operator()(value_kind::Id /*kind*/, RawId& id, const char* /*field*/) {
    id.present = true;
    if (cursor_.peek() == '"') return cursor_.plain_string(id.text);
    const char* begin = cursor_.position();  // peek() skipped the spaces
    if (!cursor_.integer(id.number)) return false;
    id.text = std::string_view(begin, static_cast<std::size_t>(cursor_.position() - begin));
    id.is_number = true;
    id.plain_decimal = true;  // integer() declines any other form ("1e3", "01", "1.0")
    return true;
  }
  bool operator()(value_kind::Time /*kind*/, TimeSlot time, const char* /*field*/) {
    time.present = true;
    return cursor_.time(time.literal, time.time);
  }
  bool operator()(value_kind::FlowId /*kind*/, std::int64_t& id, const char* /*field*/) {
    const char next = cursor_.peek();
    if (next == '"') {
      std::string_view text;
      if (!cursor_.plain_string(text)) return false;
      id = static_cast<std::int64_t>(std::hash<std::string_view>{}(text) >> 1);
      return true;
    }
    if (next == '-' || is_ascii_digit(next)) return cursor_.integer(id);
    return cursor_.skip_value();
  }
  bool operator()(value_kind::Args /*kind*/, RawEvent& event, const char* /*field*/) {
    // Declined unless an object.
    KeyOrder<ArgKey>* order = orders_ == nullptr ? nullptr : orders_->for_args(event.category);
    // Inlined, with store_arg_value, into the loop over the args: called once per arg instead,
    // it cost about 40 instructions more per event (callgrind, GCC 12).
    return object<ArgKey>(
        cursor_, [order] { return order; }, classify_arg_key,
        [&](ArgKey key)
            __attribute__((always_inline)) { return store_arg_value(key, event, *this); });
  }
  template <typename Integer>
  bool operator()(value_kind::Integer /*kind*/, Integer& value, const char* /*field*/) {
    if constexpr (std::is_same_v<Integer, std::int64_t>) {
      return cursor_.integer(value);
    } else {
      std::int64_t wide = 0;
      if (!cursor_.integer(wide)) return false;
      value = static_cast<Integer>(wide);
      return true;
    }
  }
  bool operator()(value_kind::IntegerIfNumber /*kind*/, std::int64_t& value, const char* field) {
    const char next = cursor_.peek();
    return next == '-' || is_ascii_digit(next) ? (*this)(value_kind::Integer{}, value, field)
                                               : cursor_.skip_value();
  }
  bool operator()(value_kind::Real /*kind*/, double& value, const char* /*field*/) {
    return cursor_.real(value);
  }
  bool operator()(value_kind::Triple /*kind*/, std::int32_t (&triple)[3], const char* /*field*/) {
    if (cursor_.peek() != '[') return cursor_.skip_value();
    cursor_.consume('[');
    if (cursor_.peek() == ']') return cursor_.consume(']');
    for (int index = 0;; ++index) {
      std::int64_t value = 0;
      if (!cursor_.integer(value)) return false;
      if (index < 3) triple[index] = static_cast<std::int32_t>(value);
      if (cursor_.consume(',')) continue;
      return cursor_.consume(']');
    }
  }
  bool operator()(value_kind::RawJson /*kind*/, std::string_view& raw, const char* /*field*/) {
    return cursor_.container(raw);  // declines anything but a list or an object
  }
  bool operator()(value_kind::StringIfString /*kind*/, std::string_view& text,
                  const char* /*field*/) {
    return cursor_.peek() == '"' ? cursor_.plain_string(text) : cursor_.skip_value();
  }
  bool operator()(value_kind::Address /*kind*/, RawMemory& memory, const char* /*field*/) {
    std::string_view token;
    if (!cursor_.number_token(token)) return false;
    std::uint64_t address = 0;
    const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), address);
    if (error != std::errc() || stop != token.data() + token.size()) return false;
    memory.address = address;
    memory.has_address = true;
    return true;
  }

 private:
  Cursor& cursor_;
  LearnedKeyOrders* orders_;
};

// The one caller of store_event_value(), shared by both entry points: with two callers the
// compiler called the event's field reading out of line, about 400 more instructions per event.
bool read_event(Cursor& cursor, RawEvent& out, LearnedKeyOrders* orders) {
  const auto order_now = [orders, &out]() -> KeyOrder<EventKey>* {
    return orders == nullptr ? nullptr : orders->for_event(out.phase);
  };
  ValueReader reader(cursor, orders);
  return object<EventKey>(cursor, order_now, classify_event_key,
                          [&](EventKey key) { return store_event_value(key, out, reader); });
}

}  // namespace

bool fast_parse_event(const char* text, std::size_t length, RawEvent& out, bool ascii,
                      LearnedKeyOrders* orders) {
  // simdjson validates UTF-8 as part of its parse; the fast path must refuse the same inputs.
  if (!ascii && !simdjson::validate_utf8(text, length)) return false;
  // Control characters need no pass of their own: outside strings the cursor accepts only
  // structure, literals, numbers and whitespace, and string() refuses them inside strings.
  Cursor cursor(text, text + length);
  return read_event(cursor, out, orders) && cursor.at_end();
}

std::size_t fast_parse_event_at(const char* text, const char* end, RawEvent& out,
                                LearnedKeyOrders* orders) {
  // Outside strings the cursor accepts only ASCII (structure, literals, numbers, whitespace);
  // inside them it stops at a byte above 0x7F. An event it reads is therefore ASCII, valid UTF-8.
  Cursor cursor(text, end, /*ascii_only=*/true);
  return read_event(cursor, out, orders) ? static_cast<std::size_t>(cursor.position() - text) : 0;
}

}  // namespace stepscope::kineto
