#include "render/text_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace stepscope::render {

std::string format_ms(std::int64_t ns) { return fmt::format("{:.3f} ms", ns / 1e6); }
std::string format_us(std::int64_t ns) { return fmt::format("{:.3f} µs", ns / 1e3); }

std::string format_duration(std::int64_t ns) {
  // In double, so that the most negative int64 (a corrupt duration) has a magnitude too.
  const double magnitude = std::fabs(static_cast<double>(ns));
  if (magnitude >= 1e10) return fmt::format("{:.2f} s", ns / 1e9);
  if (magnitude >= 1e6) return format_ms(ns);
  return fmt::format("{:.1f} µs", ns / 1e3);
}

std::string format_percent(double share) {
  if (!std::isfinite(share)) return "n/a";
  return fmt::format("{:.1f} %", share * 100.0);
}

std::string format_bytes(std::int64_t bytes) {
  const double value = static_cast<double>(bytes);
  const double magnitude = std::fabs(value);
  if (magnitude >= 1024.0 * 1024 * 1024)
    return fmt::format("{:.2f} GiB", value / (1024.0 * 1024 * 1024));
  if (magnitude >= 1024.0 * 1024) return fmt::format("{:.2f} MiB", value / (1024.0 * 1024));
  if (magnitude >= 1024.0) return fmt::format("{:.2f} KiB", value / 1024.0);
  return fmt::format("{} B", bytes);
}

std::string format_count(std::uint64_t count) {
  std::string digits = std::to_string(count);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string format_evidence_value(double value) {
  // Whole numbers up to 2^53 are exact in a double; beyond that, or not finite, the decimals say
  // what the double holds.
  constexpr double kExactWhole = 9007199254740992.0;
  if (std::isfinite(value) && std::fabs(value) <= kExactWhole && value == std::trunc(value)) {
    const auto magnitude = format_count(static_cast<std::uint64_t>(std::fabs(value)));
    return value < 0 ? "-" + magnitude : magnitude;
  }
  return fmt::format("{:.3f}", value);
}

std::string printable(std::string_view text, std::size_t width) { return cut_middle(text, width); }

std::string heading(std::string_view title) { return fmt::format("\n{}\n", title); }

}  // namespace stepscope::render
