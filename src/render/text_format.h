// Formatting figures for the terminal: every number carries its unit, every string from a trace
// is made printable (control characters could otherwise drive the terminal) and shortened.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepscope::render {

std::string format_duration(std::int64_t ns);   // "12.345 ms", "850.0 µs", "1.234 s"
std::string format_ms(std::int64_t ns);         // "12.345 ms"
std::string format_us(std::int64_t ns);         // "12.345 µs"
std::string format_percent(double share);       // 0.1234 -> "12.3 %"
std::string format_bytes(std::int64_t bytes);   // "1.50 GiB"
std::string format_count(std::uint64_t count);  // "12,345"
// Printable and at most `width` display columns, with "…" when cut.
std::string printable(std::string_view text, std::size_t width = 60);

// A plain-text table with a header row; columns right-aligned unless marked left.
class TextTable {
 public:
  void add_column(std::string header, bool left_aligned = false);
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] std::string render(std::string_view indent = "  ") const;
  [[nodiscard]] bool empty() const { return rows_.empty(); }

 private:
  struct Column {
    std::string header;
    bool left_aligned;
  };
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Section heading used by every terminal section.
std::string heading(std::string_view title);

}  // namespace stepscope::render
