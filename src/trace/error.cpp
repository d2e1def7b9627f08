#include "stepscope/error.h"

#include <string>

namespace stepscope {

std::string Error::describe() const {
  std::string text;
  if (!file.empty()) text += file + ": ";
  if (byte_offset) text += "at byte " + std::to_string(*byte_offset) + ": ";
  text += message;
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
