// The HTML document around a report's body: inline CSS, and the one small script (table sorting,
// and script errors recorded on <body data-errors> for the browser test). Nothing is loaded from
// anywhere: the file opens offline.
#pragma once

#include <string>
#include <string_view>

namespace stepscope::render::html {

std::string page(std::string_view title, std::string_view body);

// The page in two halves around a body written straight into `out` (a report of a megabyte is
// then not copied into a second string).
void append_page_head(std::string& out, std::string_view title);
void append_page_tail(std::string& out);

}  // namespace stepscope::render::html
