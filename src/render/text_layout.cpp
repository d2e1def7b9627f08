#include "render/text_layout.h"

#include <algorithm>
#include <vector>

#include "render/display_width.h"
#include "render/utf8.h"

namespace stepscope::render {

namespace {

struct Glyph {
  std::string_view bytes;
  std::size_t width;
};

bool is_control(std::uint32_t code_point) {
  return code_point < 0x20 || code_point == 0x7f || (code_point >= 0x80 && code_point < 0xa0);
}

// Bidirectional formatting characters (U+202E right-to-left override and its kin) reorder what
// follows them on the line: a name holding one could make a table say what the trace does not.
bool is_bidi_control(std::uint32_t code_point) {
  return code_point == 0x061c || code_point == 0x200e || code_point == 0x200f ||
         (code_point >= 0x202a && code_point <= 0x202e) ||
         (code_point >= 0x2066 && code_point <= 0x2069);
}

// The printable glyphs of `text`: control characters (which could drive the terminal) and
// bidirectional controls become '?'.
std::vector<Glyph> printable_glyphs(std::string_view text) {
  std::vector<Glyph> glyphs;
  for_each_code_point(text, [&glyphs](std::uint32_t code_point, std::string_view bytes) {
    if (is_control(code_point) || is_bidi_control(code_point)) {
      glyphs.push_back({"?", 1});
    } else {
      glyphs.push_back({bytes, code_point_width(code_point)});
    }
  });
  return glyphs;
}

std::string join(const std::vector<Glyph>& glyphs, std::size_t first, std::size_t last) {
  std::string out;
  for (std::size_t i = first; i < last; ++i) out.append(glyphs[i].bytes);
  return out;
}

// Splits a word wider than `width` into pieces of at most `width` columns.
std::vector<std::string> split_word(std::string_view word, std::size_t width) {
  std::vector<std::string> pieces(1);
  std::size_t columns = 0;
  for (const Glyph& glyph : printable_glyphs(word)) {
    if (columns + glyph.width > width && columns > 0) {
      pieces.emplace_back();
      columns = 0;
    }
    pieces.back().append(glyph.bytes);
    columns += glyph.width;
  }
  return pieces;
}

std::vector<std::string_view> words_of(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t space = text.find(' ', start);
    const std::size_t end = space == std::string_view::npos ? text.size() : space;
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

}  // namespace

std::string cut_middle(std::string_view text, std::size_t width) {
  const std::vector<Glyph> glyphs = printable_glyphs(text);
  std::size_t total = 0;
  for (const Glyph& glyph : glyphs) total += glyph.width;
  if (total <= width) return join(glyphs, 0, glyphs.size());
  if (width == 0) return {};
  // Two fifths for the head (namespace, return type, folder), the rest for the tail, which is
  // what tells names apart (the template argument, the file and line).
  const std::size_t budget = width - 1;
  const std::size_t head_budget = budget * 2 / 5;
  std::size_t head = 0;
  std::size_t head_columns = 0;
  while (head < glyphs.size() && head_columns + glyphs[head].width <= head_budget) {
    head_columns += glyphs[head++].width;
  }
  std::size_t tail = glyphs.size();
  std::size_t tail_columns = 0;
  while (tail > head && tail_columns + glyphs[tail - 1].width <= budget - head_columns) {
    tail_columns += glyphs[--tail].width;
  }
  return join(glyphs, 0, head) + "…" + join(glyphs, tail, glyphs.size());
}

std::string wrap_hanging(std::string_view first_prefix, std::string_view text, std::size_t width,
                         std::size_t hang) {
  // A hang that leaves under 20 columns for the text would make a tall thin column of words.
  hang = std::min(hang, width > 20 ? width - 20 : 0);
  std::string out(first_prefix);
  std::size_t columns = display_width(first_prefix);
  bool line_has_word = false;
  auto new_line = [&] {
    out += '\n';
    out.append(hang, ' ');
    columns = hang;
    line_has_word = false;
  };
  for (std::string_view word : words_of(text)) {
    const std::size_t word_width = display_width(word);
    const std::size_t needed = word_width + (line_has_word ? 1 : 0);
    if (columns + needed > width && (line_has_word || columns > hang)) new_line();
    if (columns + word_width > width) {
      // Only a word wider than a whole line gets here: split it.
      const std::size_t piece_width = std::max<std::size_t>(1, width - std::max(columns, hang));
      for (const std::string& piece : split_word(word, piece_width)) {
        if (line_has_word) new_line();
        out += piece;
        columns += display_width(piece);
        line_has_word = true;
      }
      continue;
    }
    if (line_has_word) {
      out += ' ';
      ++columns;
    }
    out.append(word);
    columns += word_width;
    line_has_word = true;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
  return out;
}

std::string fit_lines(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool has_newline = end != std::string_view::npos;
    if (!has_newline) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (display_width(line) <= width) {
      out.append(line);
      if (has_newline) out += '\n';
    } else {
      const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
      std::string wrapped =
          wrap_hanging(line.substr(0, indent), line.substr(indent), width, indent + 2);
      if (!has_newline) wrapped.pop_back();
      out += wrapped;
    }
    start = end + 1;
  }
  return out;
}

}  // namespace stepscope::render
