#include "stepscope/error.h"

#include <string>
#include <string_view>

namespace stepscope {

namespace {

// File names (and the names quoted in messages) come from the user's disk and may hold control
// characters that would drive the terminal: those are written as \xNN, as trace strings are.
std::string printable(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && !(keep_newlines && (c == '\n' || c == '\t'))) || byte == 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string Error::describe() const {
  std::string text;
  if (!file.empty()) text += printable(file, false) + ": ";
  if (byte_offset) text += "at byte " + std::to_string(*byte_offset) + ": ";
  text += printable(message, true);
  return text;
}

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kIo:
      return "io";
    case ErrorKind::kNotJson:
      return "not_json";
    case ErrorKind::kNotTrace:
      return "not_trace";
    case ErrorKind::kLimitExceeded:
      return "limit_exceeded";
    case ErrorKind::kUnsupported:
      return "unsupported";
    case ErrorKind::kBadOption:
      return "bad_option";
  }
  return "not_trace";
}

Error make_error(std::string message, std::optional<std::uint64_t> byte_offset) {
  return make_error(ErrorKind::kNotTrace, std::move(message), byte_offset);
}

Error make_error(ErrorKind kind, std::string message, std::optional<std::uint64_t> byte_offset) {
  return Error{.kind = kind, .file = {}, .byte_offset = byte_offset, .message = std::move(message)};
}

}  // namespace stepscope
