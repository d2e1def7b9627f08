#include "render/text_table.h"

#include <algorithm>
#include <optional>

#include "render/display_width.h"

namespace stepscope::render {

namespace {

// A name cut below this many columns no longer says which name it is.
constexpr std::size_t kNameFloor = 24;
// On a terminal too narrow for the floor, before essential columns are dropped.
constexpr std::size_t kNameStub = 8;
constexpr std::size_t kGap = 2;

std::string pad(const std::string& text, std::size_t width, bool left_aligned) {
  const std::size_t current = display_width(text);
  if (current >= width) return text;
  const std::string fill(width - current, ' ');
  return left_aligned ? text + fill : fill + text;
}

// The visible column to drop next: the least important, the rightmost among equals.
std::optional<std::size_t> next_to_drop(const std::vector<Importance>& importance,
                                        const std::vector<bool>& visible) {
  std::optional<std::size_t> pick;
  for (std::size_t c = 0; c < importance.size(); ++c) {
    if (!visible[c] || importance[c] == Importance::kEssential) continue;
    if (!pick || importance[c] >= importance[*pick]) pick = c;
  }
  return pick;
}

}  // namespace

void TextTable::add_column(std::string header, bool left_aligned, Importance importance) {
  columns_.push_back({std::move(header), left_aligned, importance});
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::vector<std::size_t> TextTable::fit(std::size_t indent, std::size_t width) const {
  const std::size_t n = columns_.size();
  std::vector<std::size_t> natural(n);
  std::vector<Importance> importance(n);
  for (std::size_t c = 0; c < n; ++c) {
    natural[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) natural[c] = std::max(natural[c], display_width(row[c]));
    importance[c] = columns_[c].importance;
  }
  std::vector<bool> visible(n, true);
  while (true) {
    std::size_t fixed = indent;
    std::size_t shown = 0;
    std::size_t names_floor = 0;
    for (std::size_t c = 0; c < n; ++c) {
      if (!visible[c]) continue;
      ++shown;
      if (columns_[c].left_aligned) {
        names_floor += std::min(natural[c], kNameFloor);
      } else {
        fixed += natural[c];
      }
    }
    fixed += shown > 0 ? (shown - 1) * kGap : 0;
    const std::optional<std::size_t> drop = next_to_drop(importance, visible);
    if (fixed + names_floor > width && drop) {
      visible[*drop] = false;
      continue;
    }
    // Only essential columns left and still too wide (a very narrow terminal): the names go
    // down to a stub, then essential columns go from the right; the first column always stays.
    std::size_t each_floor = kNameFloor;
    if (fixed + names_floor > width) {
      std::size_t stub = 0;
      for (std::size_t c = 0; c < n; ++c) {
        if (visible[c] && columns_[c].left_aligned) stub += std::min(natural[c], kNameStub);
      }
      if (fixed + stub > width) {
        std::size_t last = n;
        for (std::size_t c = n; c-- > 1;) {
          if (visible[c]) {
            last = c;
            break;
          }
        }
        if (last < n) {
          visible[last] = false;
          continue;
        }
      }
      names_floor = stub;
      each_floor = kNameStub;
    }
    // Names get their floor, then what is left, first column first.
    std::size_t spare = width > fixed + names_floor ? width - fixed - names_floor : 0;
    std::vector<std::size_t> widths(n, 0);
    for (std::size_t c = 0; c < n; ++c) {
      if (!visible[c]) continue;
      if (!columns_[c].left_aligned) {
        widths[c] = natural[c];
        continue;
      }
      const std::size_t floor = std::min(natural[c], each_floor);
      const std::size_t extra = std::min(natural[c] - floor, spare);
      widths[c] = floor + extra;
      spare -= extra;
    }
    return widths;
  }
}

std::string TextTable::render(std::string_view indent, std::size_t width) const {
  const std::vector<std::size_t> widths = fit(display_width(indent), width);
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    out += indent;
    bool first = true;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (widths[c] == 0) continue;
      if (!first) out.append(kGap, ' ');
      first = false;
      out += pad(cut_middle(cells[c], widths[c]), widths[c], columns_[c].left_aligned);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out.push_back('\n');
  };
  std::vector<std::string> header;
  for (const Column& column : columns_) header.push_back(column.header);
  emit(header);
  for (const auto& row : rows_) emit(row);
  std::string dropped;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (widths[c] > 0 || columns_[c].header.empty()) continue;
    dropped += (dropped.empty() ? "" : ", ") + columns_[c].header;
  }
  if (!dropped.empty()) {
    out += wrap_hanging(
        std::string(indent) + "(left out to fit " + std::to_string(width) + " columns: ",
        dropped + "; --width widens)", width, display_width(indent) + 2);
  }
  return out;
}

}  // namespace stepscope::render
