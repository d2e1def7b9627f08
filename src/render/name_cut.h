// Long names (C++ kernels, ops, files) cut in the middle: two kernels that share their first 40
// characters ("void at::native::vectorized_elementwise_kernel<4, ...") differ in their tail, so
// the tail is what must stay visible.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stepscope::render {

// `name` when it has at most `max_characters` code points; else its head and tail around "…",
// `max_characters` code points in all, cut on UTF-8 character boundaries (an invalid byte counts
// as one character and comes out as U+FFFD). The result is text, not markup: escape it for HTML.
std::string cut_name_middle(std::string_view name, std::size_t max_characters);

// A name for a chart label: when it is too long and ends in a C++ parameter list ("kernel<...>(int,
// float*)"), the list goes first (it repeats the template's types and tells kernels apart less
// than the template does), then the rest is cut in the middle. Show the full name beside it.
std::string shorten_name(std::string_view name, std::size_t max_characters);

}  // namespace stepscope::render
