// Text from a trace in HTML: every string a stranger's file can hold (a kernel named
// <script>, quotes, control characters, invalid UTF-8) comes out as inert text.
#pragma once

#include <string>
#include <string_view>

namespace stepscope::render::html {

// Escapes & < > " ' and replaces control characters and invalid UTF-8 with U+FFFD; safe in
// element content and in quoted attribute values.
std::string escape(std::string_view text);
void append_escaped(std::string& out, std::string_view text);

}  // namespace stepscope::render::html
