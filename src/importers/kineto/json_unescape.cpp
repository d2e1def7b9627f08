#include "importers/kineto/json_unescape.h"

#include <cctype>
#include <cstdint>

namespace stepscope::kineto {

namespace {

constexpr std::uint32_t kReplacementCharacter = 0xFFFD;

bool read_hex4(std::string_view text, std::size_t& at, std::uint32_t& value) {
  if (text.size() - at < 4) return false;
  value = 0;
  for (std::size_t end = at + 4; at < end; ++at) {
    const auto c = static_cast<unsigned char>(text[at]);
    if (std::isxdigit(c) == 0) return false;
    const std::uint32_t digit = std::isdigit(c) != 0 ? c - '0' : (std::tolower(c) - 'a') + 10;
    value = value * 16 + digit;
  }
  return true;
}

void append_utf8(std::uint32_t code_point, std::string& out) {
  const auto byte = [&out](std::uint32_t bits) { out.push_back(static_cast<char>(bits)); };
  if (code_point < 0x80) {
    byte(code_point);
  } else if (code_point < 0x800) {
    byte(0xC0 | (code_point >> 6));
    byte(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    byte(0xE0 | (code_point >> 12));
    byte(0x80 | ((code_point >> 6) & 0x3F));
    byte(0x80 | (code_point & 0x3F));
  } else {
    byte(0xF0 | (code_point >> 18));
    byte(0x80 | ((code_point >> 12) & 0x3F));
    byte(0x80 | ((code_point >> 6) & 0x3F));
    byte(0x80 | (code_point & 0x3F));
  }
}

bool is_high_surrogate(std::uint32_t u) { return u >= 0xD800 && u < 0xDC00; }
bool is_low_surrogate(std::uint32_t u) { return u >= 0xDC00 && u < 0xE000; }

// `\uXXXX` after its backslash and `u`; a surrogate pair takes both escapes.
bool read_unicode_escape(std::string_view text, std::size_t& at, std::string& out,
                         std::size_t& replaced) {
  std::uint32_t code_point = 0;
  if (!read_hex4(text, at, code_point)) return false;
  if (is_high_surrogate(code_point) && text.substr(at, 2) == "\\u") {
    std::size_t low_at = at + 2;
    std::uint32_t low = 0;
    if (read_hex4(text, low_at, low) && is_low_surrogate(low)) {
      append_utf8(0x10000 + ((code_point - 0xD800) << 10) + (low - 0xDC00), out);
      at = low_at;
      return true;
    }
  }
  if (is_high_surrogate(code_point) || is_low_surrogate(code_point)) {
    ++replaced;
    code_point = kReplacementCharacter;
  }
  append_utf8(code_point, out);
  return true;
}

char simple_escape(char escaped) {
  switch (escaped) {
    case '"':
    case '\\':
    case '/':
      return escaped;
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    default:
      return '\0';  // not a JSON escape
  }
}

}  // namespace

bool unescape_json_string(std::string_view text, std::size_t& at, std::string& out,
                          std::size_t& replaced) {
  if (at >= text.size() || text[at] != '"') return false;
  ++at;
  while (at < text.size()) {
    const char c = text[at++];
    if (c == '"') return true;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (at >= text.size()) return false;
    const char escaped = text[at++];
    if (escaped == 'u') {
      if (!read_unicode_escape(text, at, out, replaced)) return false;
      continue;
    }
    const char plain = simple_escape(escaped);
    if (plain == '\0') return false;
    out.push_back(plain);
  }
  return false;
}

}  // namespace stepscope::kineto
