// Laying text out for a terminal of a given width: strings from a trace are made printable and
// cut in the middle (the distinguishing tail of a C++ or Python name is kept), prose is wrapped
// with a hanging indent, and a last pass keeps every line of a report within the width.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stepscope::render {

// When the CLI cannot tell the terminal's width.
inline constexpr std::size_t kDefaultTextWidth = 100;
// Narrower than this, no table or wrapped text stays readable; narrower requests are raised.
inline constexpr std::size_t kMinimumTextWidth = 40;

// Printable (control characters become '?') and at most `width` display columns; a longer text
// keeps its head and its tail around "…" ("void at::native::…CUDAFunctor_add<float>").
std::string cut_middle(std::string_view text, std::size_t width);

// `text` wrapped at spaces to lines of at most `width` columns: the first line starts with
// `first_prefix`, the next ones with `hang` spaces. A word longer than a line is split. Every
// line ends with '\n'.
std::string wrap_hanging(std::string_view first_prefix, std::string_view text, std::size_t width,
                         std::size_t hang);

// Every line of `text` longer than `width` columns wrapped, its continuation indented two columns
// past the line's own indentation: the guarantee that no line of a report overflows.
std::string fit_lines(std::string_view text, std::size_t width);

}  // namespace stepscope::render
