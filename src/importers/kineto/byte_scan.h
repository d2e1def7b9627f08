// The two byte searches the fast event parser spends its time in: skipping whitespace (Kineto
// indents every event, so runs of spaces are a good share of its text) and finding the end of a
// string. Sixteen bytes at a time with SSE2, which every x86-64 CPU has; byte by byte elsewhere.
// Both may read up to 15 bytes past `end` (callers pad their buffers by 64) but never answer
// beyond it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stepscope::kineto {

inline bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
inline bool is_string_special(char c) {
  return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
}

// The byte-at-a-time versions: the fallback, and the reference in tests.
inline const char* skip_json_space_portable(const char* p, const char* end) {
  while (p < end && is_json_space(*p)) ++p;
  return p;
}
inline const char* find_string_special_portable(const char* p, const char* end,
                                                bool stop_at_high = false) {
  while (p < end && !is_string_special(*p) &&
         !(stop_at_high && static_cast<unsigned char>(*p) >= 0x80)) {
    ++p;
  }
  return p;
}

// A run of whitespace longer than one byte: out of line, so that the many inlined calls stay
// small.
[[gnu::noinline]] inline const char* skip_json_space_run(const char* p, const char* end) {
#if defined(__SSE2__)
  for (; p < end; p += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i space = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8(' ')),
                                                    _mm_cmpeq_epi8(block, _mm_set1_epi8('\n'))),
                                       _mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('\r')),
                                                    _mm_cmpeq_epi8(block, _mm_set1_epi8('\t'))));
    const auto other = static_cast<std::uint32_t>(~_mm_movemask_epi8(space)) & 0xFFFFU;
    if (other != 0) return std::min(p + std::countr_zero(other), end);
  }
  return end;
#else
  return skip_json_space_portable(p, end);
#endif
}

// The first byte in [p, end) that is not JSON whitespace, or `end`.
inline const char* skip_json_space(const char* p, const char* end) {
  // Most calls find no whitespace at all, or the single space after ':' or ','.
  if (p<end&& static_cast<unsigned char>(*p)> ' ') return p;
  if (p + 1 < end && *p == ' ' && static_cast<unsigned char>(p[1]) > ' ') return p + 1;
  return skip_json_space_run(p, end);
}

// The first '"', '\\' or control byte (below 0x20, which JSON forbids in strings) in [p, end),
// or `end`. `stop_at_high`: a byte above 0x7F stops it too, for a reader that has not checked
// the text's UTF-8 and leaves anything but ASCII to a parser that does.
inline const char* find_string_special(const char* p, const char* end, bool stop_at_high = false) {
#if defined(__SSE2__)
  const std::uint32_t high_mask = stop_at_high ? 0xFFFFU : 0U;
  for (; p < end; p += 16) {
    const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Unsigned "below 0x20": the byte equals its minimum with 0x1F.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(block, _mm_set1_epi8(0x1F)), block);
    const __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(block, _mm_set1_epi8('"')),
                                                      _mm_cmpeq_epi8(block, _mm_set1_epi8('\\'))),
                                         control);
    const auto found = static_cast<std::uint32_t>(_mm_movemask_epi8(special)) |
                       (static_cast<std::uint32_t>(_mm_movemask_epi8(block)) & high_mask);
    if (found != 0) return std::min(p + std::countr_zero(found), end);
  }
  return end;
#else
  return find_string_special_portable(p, end, stop_at_high);
#endif
}

}  // namespace stepscope::kineto
