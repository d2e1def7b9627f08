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

}  // namespace stepscope::render
