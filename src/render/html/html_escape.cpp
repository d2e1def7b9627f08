#include "render/html/html_escape.h"

#include "render/utf8.h"

namespace stepscope::render::html {

void append_escaped(std::string& out, std::string_view text) {
  for_each_code_point(text, [&out](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '&':
        out += "&amp;";
        return;
      case '<':
        out += "&lt;";
        return;
      case '>':
        out += "&gt;";
        return;
      case '"':
        out += "&quot;";
        return;
      case '\'':
        out += "&#39;";
        return;
      default:
        break;
    }
    const bool control = (code_point < 0x20 && code_point != '\n' && code_point != '\t') ||
                         (code_point >= 0x7f && code_point < 0xa0);
    out += control ? std::string_view("\xef\xbf\xbd") : bytes;
  });
}

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped(out, text);
  return out;
}

std::string escape_name(std::string_view name) {
  if (name.size() <= kMaxNameBytes) return escape(name);
  std::size_t cut = kMaxNameBytes;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xc0) == 0x80) --cut;
  return escape(name.substr(0, cut)) + "\u2026";
}

}  // namespace stepscope::render::html
