#include "render/html/script_json.h"

#include <fmt/format.h>

#include "render/utf8.h"

namespace stepscope::render::html {

void append_script_json_string(std::string& out, std::string_view text) {
  out += '"';
  for_each_code_point(text, [&out](std::uint32_t code_point, std::string_view bytes) {
    switch (code_point) {
      case '"':
        out += "\\\"";
        return;
      case '\\':
        out += "\\\\";
        return;
      case '\n':
        out += "\\n";
        return;
      case '\t':
        out += "\\t";
        return;
      default:
        break;
    }
    const bool unsafe = code_point < 0x20 || code_point == '<' || code_point == '>' ||
                        code_point == '&' || code_point == 0x2028 || code_point == 0x2029;
    if (unsafe) {
      out += fmt::format("\\u{:04x}", code_point);
    } else {
      out += bytes;
    }
  });
  out += '"';
}

}  // namespace stepscope::render::html
