// A plain-text table that fits a terminal width: left-aligned (name) columns are cut in the
// middle first, then whole columns are dropped, least important first, and the table says which.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "render/text_layout.h"

namespace stepscope::render {

// How readily a column gives way when the table is too wide: kLow goes first, kEssential never.
enum class Importance { kEssential, kHigh, kMedium, kLow };

class TextTable {
 public:
  // Columns are right-aligned unless marked left; a left-aligned column holds names and may be
  // cut in the middle to fit.
  void add_column(std::string header, bool left_aligned = false,
                  Importance importance = Importance::kEssential);
  void add_row(std::vector<std::string> cells);
  [[nodiscard]] std::string render(std::string_view indent = "  ",
                                   std::size_t width = kDefaultTextWidth) const;
  [[nodiscard]] bool empty() const { return rows_.empty(); }

 private:
  struct Column {
    std::string header;
    bool left_aligned;
    Importance importance;
  };
  // Display width of each column, 0 for a dropped one.
  [[nodiscard]] std::vector<std::size_t> fit(std::size_t indent, std::size_t width) const;
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace stepscope::render
