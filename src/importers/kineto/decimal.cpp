#include "importers/kineto/decimal.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "importers/kineto/digit_scan.h"

namespace stepscope::kineto {

namespace {

// Significant digits kept in the mantissa: __int128 holds any 38-digit number. Further digits
// only scale the value (integer part) or round it (fraction), and int64 nanoseconds need
// far fewer.
constexpr int kMaxDigits = 38;

struct Decimal {
  bool negative = false;
  __int128 mantissa = 0;   // the significant digits read so far
  int scale = 0;           // value = mantissa * 10^scale (in microseconds)
  bool sticky = false;     // nonzero digits were dropped after the mantissa filled up
  int dropped_first = -1;  // first dropped digit, for rounding
};

// Reads `-?digits(.digits)?([eE][+-]?digits)?` exactly as JSON defines numbers.
std::optional<Decimal> read_decimal(std::string_view text) {
  Decimal d;
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  int digits = 0;
  auto take_digit = [&](char c, bool fractional) {
    if (digits < kMaxDigits) {
      if (digits > 0 || c != '0') ++digits;
      d.mantissa = d.mantissa * 10 + (c - '0');
      if (fractional) --d.scale;
    } else {
      if (!fractional) ++d.scale;
      if (d.dropped_first < 0) {
        d.dropped_first = c - '0';
      } else if (c != '0') {
        d.sticky = true;
      }
    }
  };
  const std::size_t integer_start = i;
  while (i < text.size() && is_ascii_digit(text[i])) take_digit(text[i++], false);
  if (i == integer_start) return std::nullopt;
  if (text[integer_start] == '0' && i - integer_start > 1) return std::nullopt;  // leading zero
  if (i < text.size() && text[i] == '.') {
    ++i;
    const std::size_t fraction_start = i;
    while (i < text.size() && is_ascii_digit(text[i])) take_digit(text[i++], true);
    if (i == fraction_start) return std::nullopt;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exponent_negative = text[i++] == '-';
    const std::size_t exponent_start = i;
    int exponent = 0;
    while (i < text.size() && is_ascii_digit(text[i])) {
      exponent = exponent < 100000 ? exponent * 10 + (text[i] - '0') : exponent;
      ++i;
    }
    if (i == exponent_start) return std::nullopt;
    d.scale += exponent_negative ? -exponent : exponent;
  }
  if (i != text.size()) return std::nullopt;
  return d;
}

}  // namespace

namespace {

// The common case, `1661203462598738` or `123456.789`: at most 16 integer digits and 3
// decimals, so no rounding is needed and the only overflow to check is the last multiply.
std::optional<std::int64_t> fast_microseconds(std::string_view literal) {
  constexpr std::size_t kMaxIntegerDigits = 16;
  std::size_t i = 0;
  std::int64_t value = 0;
  while (i < literal.size() && i < kMaxIntegerDigits && is_ascii_digit(literal[i])) {
    value = value * 10 + (literal[i++] - '0');
  }
  if (i == 0 || (literal[0] == '0' && i > 1) || value > kMaxPlainMicroseconds) return std::nullopt;
  if (i == literal.size()) return value * 1000;
  if (literal[i] != '.') return std::nullopt;
  const std::size_t fraction_start = ++i;
  std::int64_t fraction = 0;
  // Three decimals at most here; longer fractions take the exact path (and cannot overflow).
  while (i < literal.size() && is_ascii_digit(literal[i]) && i - fraction_start < 4) {
    fraction = fraction * 10 + (literal[i++] - '0');
  }
  const std::size_t digits = i - fraction_start;
  if (i != literal.size() || digits == 0 || digits > 3) return std::nullopt;
  return plain_microseconds_to_ns(value, fraction, digits);
}

}  // namespace

std::optional<std::int64_t> microseconds_literal_to_ns(std::string_view literal) {
  if (std::optional<std::int64_t> fast = fast_microseconds(literal)) return fast;
  const std::optional<Decimal> parsed = read_decimal(literal);
  if (!parsed) return std::nullopt;
  Decimal d = *parsed;
  int shift = d.scale + 3;  // microseconds -> nanoseconds
  __int128 value = d.mantissa;
  constexpr __int128 kLimit = static_cast<__int128>(INT64_MAX);
  if (value == 0) return 0;
  if (shift > 0) {
    if (shift > 19) return std::nullopt;
    for (int k = 0; k < shift; ++k) {
      if (value > kLimit / 10) return std::nullopt;  // checked first: the product may not fit
      value *= 10;
    }
  } else if (shift < 0) {
    // Round to nearest, ties to even, using the dropped digits.
    if (-shift > kMaxDigits + 2) return 0;  // far below a nanosecond
    int first_dropped = d.dropped_first;
    bool sticky = d.sticky;
    for (int k = 0; k < -shift; ++k) {
      if (first_dropped >= 0 && first_dropped != 0) sticky = true;
      first_dropped = static_cast<int>(value % 10);
      value /= 10;
    }
    if (first_dropped > 5 || (first_dropped == 5 && (sticky || (value % 2) == 1))) ++value;
  } else if (d.dropped_first >= 0) {
    if (d.dropped_first > 5 || (d.dropped_first == 5 && (d.sticky || (value % 2) == 1))) ++value;
  }
  if (value > kLimit) return std::nullopt;
  const auto magnitude = static_cast<std::int64_t>(value);
  return d.negative ? -magnitude : magnitude;
}

bool is_json_number(std::string_view text) { return read_decimal(text).has_value(); }

bool is_integer_literal(std::string_view literal) {
  // A JSON number is an integer when it is only digits after an optional '-'. Up to sixteen
  // digits (every timestamp in microseconds) are tested eight at a time: a byte is a digit when
  // its high nibble is 3 and adding 6 leaves it there.
  if (!literal.empty() && literal.front() == '-') literal.remove_prefix(1);
  constexpr std::size_t kWord = 8;
  if (literal.size() <= 2 * kWord) {
    char padded[2 * kWord];
    std::memset(padded, '0', sizeof padded);
    std::memcpy(padded, literal.data(), literal.size());
    constexpr std::uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
    constexpr std::uint64_t kThrees = 0x3030303030303030ULL;
    constexpr std::uint64_t kSixes = 0x0606060606060606ULL;
    const auto all_digits = [](std::uint64_t word) {
      return (word & kHighNibbles) == kThrees && ((word + kSixes) & kHighNibbles) == kThrees;
    };
    std::uint64_t first = 0;
    std::uint64_t second = 0;
    std::memcpy(&first, padded, kWord);
    std::memcpy(&second, padded + kWord, kWord);
    return all_digits(first) && all_digits(second);
  }
  return std::all_of(literal.begin(), literal.end(), is_ascii_digit);
}

}  // namespace stepscope::kineto
