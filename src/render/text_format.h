// Formatting figures for the terminal: every number carries its unit, every string from a trace
// is made printable (control characters could otherwise drive the terminal) and shortened.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "render/text_table.h"

namespace stepscope::render {

std::string format_duration(std::int64_t ns);   // "12.345 ms", "850.0 µs", "1.234 s"
std::string format_ms(std::int64_t ns);         // "12.345 ms"
std::string format_us(std::int64_t ns);         // "12.345 µs"
std::string format_percent(double share);       // 0.1234 -> "12.3 %"
std::string format_bytes(std::int64_t bytes);   // "1.50 GiB"
std::string format_count(std::uint64_t count);  // "12,345"
// An evidence figure, without its unit: a whole number as one ("300", "12,345"), as counts are;
// anything else with three decimals ("14.653").
std::string format_evidence_value(double value);
// Printable and at most `width` display columns, cut in the middle (see cut_middle).
std::string printable(std::string_view text, std::size_t width = 60);

// The most display columns of a finding's fix. The fix is stepscope's own advice, a paragraph
// the terminal wraps: cut in the middle it would lose the change it asks for. The bound is for the
// trace's names spliced into it.
inline constexpr std::size_t kFixColumns = 2000;

// Section heading used by every terminal section.
std::string heading(std::string_view title);

}  // namespace stepscope::render
