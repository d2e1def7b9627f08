#include "render/text_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/utf8.h"

namespace stepscope::render {

namespace {

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for_each_code_point(text, [&width](std::uint32_t, std::string_view) { ++width; });
  return width;
}

std::string pad(const std::string& text, std::size_t width, bool left_aligned) {
  const std::size_t current = display_width(text);
  if (current >= width) return text;
  const std::string fill(width - current, ' ');
  return left_aligned ? text + fill : fill + text;
}

}  // namespace

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

std::string printable(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t columns = 0;
  bool cut = false;
  for_each_code_point(text, [&](std::uint32_t code_point, std::string_view bytes) {
    if (cut) return;
    if (columns + 1 > width) {
      cut = true;
      return;
    }
    if (code_point < 0x20 || code_point == 0x7f || (code_point >= 0x80 && code_point < 0xa0)) {
      out.push_back('?');
    } else {
      out.append(bytes);
    }
    ++columns;
  });
  if (cut && width > 0) {
    // Replace the last column with an ellipsis.
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xc0) == 0x80) out.pop_back();
    if (!out.empty()) out.pop_back();
    out += "…";
  }
  return out;
}

void TextTable::add_column(std::string header, bool left_aligned) {
  columns_.push_back({std::move(header), left_aligned});
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(std::string_view indent) const {
  std::vector<std::size_t> widths(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    out += indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += "  ";
      out += pad(cells[c], widths[c], columns_[c].left_aligned);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out.push_back('\n');
  };
  std::vector<std::string> header;
  for (const Column& column : columns_) header.push_back(column.header);
  emit(header);
  for (const auto& row : rows_) emit(row);
  return out;
}

std::string heading(std::string_view title) { return fmt::format("\n{}\n", title); }

}  // namespace stepscope::render
