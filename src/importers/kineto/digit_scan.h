// Reading runs of decimal digits without a branch per digit. A Kineto event holds several long
// integers (a 16-digit timestamp, pids, ids, indices), and the byte-at-a-time loops that read
// them were about a tenth of all of `analyze`'s instructions on a real trace.
// Counting the digits takes one 16-byte compare; converting up to eight takes three multiplies.
//
// Like byte_scan.h, both functions may read up to 15 bytes past `end` (callers pad their buffers
// by 64) but never answer beyond it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stepscope::kineto {

// The most digits one call of leading_digits() counts.
inline constexpr std::size_t kDigitBlock = 16;

inline bool is_ascii_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// The byte-at-a-time versions: the fallback, and the reference in tests.
inline std::size_t leading_digits_portable(const char* p, const char* end) {
  const char* stop = p + std::min<std::ptrdiff_t>(end - p, kDigitBlock);
  const char* q = p;
  while (q < stop && is_ascii_digit(*q)) ++q;
  return static_cast<std::size_t>(q - p);
}
inline std::uint64_t digits_value_portable(const char* p, std::size_t count) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < count; ++i) value = value * 10 + static_cast<unsigned>(p[i] - '0');
  return value;
}

// How many of the bytes from `p` (at most kDigitBlock, and none at or past `end`) are ASCII
// digits before the first that is not.
inline std::size_t leading_digits(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // A digit is a byte whose distance above '0' is at most 9, compared unsigned: the distance
  // equals its minimum with 9.
  const __m128i above_zero = _mm_sub_epi8(block, _mm_set1_epi8('0'));
  const __m128i digit = _mm_cmpeq_epi8(_mm_min_epu8(above_zero, _mm_set1_epi8(9)), above_zero);
  const auto mask = static_cast<std::uint32_t>(_mm_movemask_epi8(digit));
  const auto count = static_cast<std::size_t>(std::countr_one(mask));  // 16 at most
  return std::min(count, static_cast<std::size_t>(end - p));
#else
  return leading_digits_portable(p, end);
#endif
}

namespace digit_scan_detail {

// Eight digit values (0 to 9), one per byte, the first (most significant) in the lowest byte.
// Each step joins neighbouring groups into one group of twice the digits in a lane twice as
// wide; no lane overflows into the next (99, 9999 and 99,999,999 fit their lanes).
inline std::uint64_t join_eight_digits(std::uint64_t bytes) {
  const std::uint64_t pairs = (bytes * 10 + (bytes >> 8)) & 0x00FF00FF00FF00FFULL;
  const std::uint64_t quads = (pairs * 100 + (pairs >> 16)) & 0x0000FFFF0000FFFFULL;
  return (quads * 10000 + (quads >> 32)) & 0xFFFFFFFFULL;
}

// The value of the `count` (1 to 8) digits at `p`, read as one word. The bytes after them may be
// anything: subtracting '0' from each byte can borrow only upwards, into bytes the shift drops.
inline std::uint64_t up_to_eight_digits(const char* p, std::size_t count) {
  std::uint64_t word = 0;
  std::memcpy(&word, p, sizeof word);
  word -= 0x3030303030303030ULL;
  word <<= 8 * (8 - count);  // the digits to the top, zero digits in front of them
  return join_eight_digits(word);
}

}  // namespace digit_scan_detail

// The value of the `count` (1 to kDigitBlock) ASCII digits at `p`; reads 16 bytes from `p`.
inline std::uint64_t digits_value(const char* p, std::size_t count) {
  if constexpr (std::endian::native != std::endian::little) {
    return digits_value_portable(p, count);
  } else {
    using digit_scan_detail::up_to_eight_digits;
    if (count <= 8) return up_to_eight_digits(p, count);
    constexpr std::uint64_t kPowersOfTen[] = {1,      10,      100,      1000,     10000,
                                              100000, 1000000, 10000000, 100000000};
    return up_to_eight_digits(p, 8) * kPowersOfTen[count - 8] +
           up_to_eight_digits(p + 8, count - 8);
  }
}

}  // namespace stepscope::kineto
