// Errors about a small JSON document stepscope wrote itself and reads back (the monitor
// timeline, the plan measurement), worded one way for both readers: each names the file and,
// where the position is known, the byte offset into the document.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stepscope/error.h"

namespace stepscope::io {

class DocumentErrors {
 public:
  // `json` and `file` must outlive this object. `kind`: what the document is, in messages
  // ("timeline document").
  DocumentErrors(const simdjson::padded_string& json, const std::string& file,
                 std::string_view kind)
      : base_(json.data()), size_(json.size()), file_(file), kind_(kind) {}

  [[nodiscard]] Error fail(std::optional<std::uint64_t> offset, std::string message,
                           ErrorKind kind = ErrorKind::kNotTrace) const;
  // The offset of `at` within the document; none when it points elsewhere.
  [[nodiscard]] std::optional<std::uint64_t> offset_of(const char* at) const;
  [[nodiscard]] std::optional<std::uint64_t> offset_of(simdjson::ondemand::value& value) const {
    return offset_of(value.raw_json_token().data());
  }
  // An error simdjson reported while iterating `document` (null before iteration began): the
  // document is not valid JSON; the offset is where the iteration stopped.
  [[nodiscard]] Error invalid_json(simdjson::error_code code,
                                   simdjson::ondemand::document* document) const;
  // After the root object, the document must be at its end: a location still in bounds is
  // trailing content.
  [[nodiscard]] Status expect_end(simdjson::ondemand::document& document) const;

 private:
  const char* base_;
  std::size_t size_;
  const std::string& file_;
  std::string_view kind_;
};

}  // namespace stepscope::io
