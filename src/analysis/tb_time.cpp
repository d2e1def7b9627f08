#include "analysis/tb_time.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace stepscope::tb {

double microseconds_as_double(std::int64_t ns) {
  // Parse the exact decimal text: from_chars rounds correctly, as Python's float() does.
  char text[48];
  char* at = text;
  if (ns < 0) *at++ = '-';
  const std::uint64_t magnitude =
      ns < 0 ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  at = std::to_chars(at, text + sizeof(text), magnitude / 1000).ptr;
  *at++ = '.';
  const std::uint64_t fraction = magnitude % 1000;
  *at++ = static_cast<char>('0' + fraction / 100);
  *at++ = static_cast<char>('0' + fraction / 10 % 10);
  *at++ = static_cast<char>('0' + fraction % 10);
  double value = 0;
  std::from_chars(text, at, value);
  return value;
}

std::int64_t double_microseconds_to_ns(double us) {
  // Split first: us * 1000 would itself round at 1.7e18 (a double's spacing there is 256 ns).
  const double whole = std::floor(us);
  const double fraction = us - whole;  // exact
  return static_cast<std::int64_t>(whole) * 1000 + std::llround(fraction * 1000.0);
}

Interval float_interval(std::int64_t start_ns, std::int64_t dur_ns) {
  const double start = microseconds_as_double(start_ns);
  const double end = start + microseconds_as_double(dur_ns);
  return {double_microseconds_to_ns(start), double_microseconds_to_ns(end)};
}

std::int64_t float_instant(std::int64_t ns) {
  return double_microseconds_to_ns(microseconds_as_double(ns));
}

}  // namespace stepscope::tb
