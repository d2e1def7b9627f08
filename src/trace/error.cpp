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

Error make_error(std::string message, std::optional<std::uint64_t> byte_offset) {
  return Error{.file = {}, .byte_offset = byte_offset, .message = std::move(message)};
}

}  // namespace stepscope
