#include "render/display_width.h"

#include <algorithm>
#include <array>
#include <utility>

#include "render/utf8.h"

namespace stepscope::render {

namespace {

using Range = std::pair<std::uint32_t, std::uint32_t>;  // inclusive

// Combining marks and zero-width characters: drawn over the previous column.
constexpr std::array<Range, 10> kZeroWidth = {{{0x0300, 0x036f},
                                               {0x0483, 0x0489},
                                               {0x0591, 0x05bd},
                                               {0x1ab0, 0x1aff},
                                               {0x1dc0, 0x1dff},
                                               {0x200b, 0x200f},
                                               {0x20d0, 0x20ff},
                                               {0xfe00, 0xfe0f},
                                               {0xfe20, 0xfe2f},
                                               {0xe0100, 0xe01ef}}};

// East Asian wide and fullwidth characters, and the emoji blocks terminals draw two columns wide.
constexpr std::array<Range, 13> kDoubleWidth = {{{0x1100, 0x115f},
                                                 {0x2e80, 0x303e},
                                                 {0x3041, 0x33ff},
                                                 {0x3400, 0x4dbf},
                                                 {0x4e00, 0x9fff},
                                                 {0xa000, 0xa4cf},
                                                 {0xac00, 0xd7a3},
                                                 {0xf900, 0xfaff},
                                                 {0xfe30, 0xfe4f},
                                                 {0xff00, 0xff60},
                                                 {0xffe0, 0xffe6},
                                                 {0x1f300, 0x1faff},
                                                 {0x20000, 0x3fffd}}};

template <std::size_t N>
bool in(const std::array<Range, N>& ranges, std::uint32_t code_point) {
  return std::any_of(ranges.begin(), ranges.end(), [code_point](const Range& r) {
    return code_point >= r.first && code_point <= r.second;
  });
}

}  // namespace

std::size_t code_point_width(std::uint32_t code_point) {
  if (in(kZeroWidth, code_point)) return 0;
  if (in(kDoubleWidth, code_point)) return 2;
  return 1;
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for_each_code_point(text, [&width](std::uint32_t code_point, std::string_view) {
    width += code_point_width(code_point);
  });
  return width;
}

}  // namespace stepscope::render
