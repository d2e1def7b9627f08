// How many terminal columns text takes: CJK and emoji take two, combining marks none. A terminal
// line is measured in columns, not bytes or code points, or wide names would overflow it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stepscope::render {

// 0, 1 or 2 columns (an approximation of wcwidth that needs no locale).
std::size_t code_point_width(std::uint32_t code_point);

// Columns of UTF-8 text; an invalid byte counts as one column (it is shown as U+FFFD).
std::size_t display_width(std::string_view text);

}  // namespace stepscope::render
