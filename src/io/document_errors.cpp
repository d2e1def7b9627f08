#include "io/document_errors.h"

#include <utility>

namespace stepscope::io {

Error DocumentErrors::fail(std::optional<std::uint64_t> offset, std::string message,
                           ErrorKind kind) const {
  return Error{.kind = kind, .file = file_, .byte_offset = offset, .message = std::move(message)};
}

std::optional<std::uint64_t> DocumentErrors::offset_of(const char* at) const {
  if (at == nullptr || at < base_ || at > base_ + size_) return std::nullopt;
  return static_cast<std::uint64_t>(at - base_);
}

Error DocumentErrors::invalid_json(simdjson::error_code code,
                                   simdjson::ondemand::document* document) const {
  const char* at = nullptr;
  std::optional<std::uint64_t> offset;
  if (document != nullptr && document->current_location().get(at) == simdjson::SUCCESS) {
    offset = offset_of(at);
  }
  return fail(offset, "not a valid " + std::string(kind_) + ": " + simdjson::error_message(code),
              ErrorKind::kNotJson);
}

Status DocumentErrors::expect_end(simdjson::ondemand::document& document) const {
  if (const char* rest = nullptr; document.current_location().get(rest) == simdjson::SUCCESS) {
    return fail(offset_of(rest),
                "not a valid " + std::string(kind_) + ": content after the object");
  }
  return Done{};
}

}  // namespace stepscope::io
