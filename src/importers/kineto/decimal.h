// Exact conversion of Chrome-trace microsecond literals to integer nanoseconds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stepscope::kineto {

// Parses a JSON number literal in microseconds (`12`, `12.345`, `-3.5`, `1.2e3`) into
// nanoseconds without binary floating point; digits past the nanosecond round to nearest,
// ties to even. Returns nullopt for text that is not a JSON number or does not fit in int64.
std::optional<std::int64_t> microseconds_literal_to_ns(std::string_view literal);

// True when `text` is a number as JSON defines it.
bool is_json_number(std::string_view text);

// True when a JSON number literal is written as an integer (no fraction, no exponent).
bool is_integer_literal(std::string_view literal);

// A plain time: whole microseconds up to this, and at most three decimals, converts to int64
// nanoseconds without rounding or overflow. The builder's fast path and the fast event parser
// (which converts while it reads) share the bound and the arithmetic.
inline constexpr std::int64_t kMaxPlainMicroseconds = (INT64_MAX - 999) / 1000;
// `fraction` holds the `decimals` (0 to 3) digits after the point.
constexpr std::int64_t plain_microseconds_to_ns(std::int64_t micros, std::int64_t fraction,
                                                std::size_t decimals) {
  constexpr std::int64_t kScale[] = {1000, 100, 10, 1};
  return micros * 1000 + fraction * kScale[decimals];
}

}  // namespace stepscope::kineto
