// Decoding UTF-8 defensively: strings from traces may hold any bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepscope::render {

inline constexpr std::uint32_t kReplacementCharacter = 0xfffd;

// Calls visit(code_point, bytes) for each code point; an invalid or truncated sequence is
// reported as U+FFFD with bytes = its UTF-8 encoding "\xef\xbf\xbd".
template <typename Visit>
void for_each_code_point(std::string_view text, Visit&& visit) {
  static constexpr std::string_view kReplacement = "\xef\xbf\xbd";
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      visit(lead, text.substr(i, 1));
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code_point = 0;
    std::uint32_t minimum = 0;
    if ((lead & 0xe0) == 0xc0) {
      length = 2, code_point = lead & 0x1f, minimum = 0x80;
    } else if ((lead & 0xf0) == 0xe0) {
      length = 3, code_point = lead & 0x0f, minimum = 0x800;
    } else if ((lead & 0xf8) == 0xf0) {
      length = 4, code_point = lead & 0x07, minimum = 0x10000;
    }
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      valid = (next & 0xc0) == 0x80;
      code_point = (code_point << 6) | (next & 0x3f);
    }
    valid = valid && code_point >= minimum && code_point <= 0x10ffff &&
            !(code_point >= 0xd800 && code_point <= 0xdfff);
    if (valid) {
      visit(code_point, text.substr(i, length));
      i += length;
    } else {
      visit(kReplacementCharacter, kReplacement);
      ++i;
    }
  }
}

}  // namespace stepscope::render
