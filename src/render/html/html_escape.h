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

// A name as tables and tooltips show it: whole up to kMaxNameBytes, else cut there (on a UTF-8
// boundary) and marked `…`, so that a trace of huge names cannot grow a page without bound.
inline constexpr std::size_t kMaxNameBytes = 512;
std::string escape_name(std::string_view name);

}  // namespace stepscope::render::html
