#include "diagnosis/input_dims.h"

#include <cctype>

namespace stepscope {

namespace {

void skip_spaces(std::string_view text, std::size_t& at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])) != 0) ++at;
}

// Reads `[1, 2, 3]`; nested lists (tensor lists) are flattened into their first shape.
bool read_shape(std::string_view text, std::size_t& at, Shape& shape) {
  if (at >= text.size() || text[at] != '[') return false;
  ++at;
  for (;;) {
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ']') {
      ++at;
      return true;
    }
    if (at < text.size() && text[at] == '[') {  // a list of tensors: keep the first
      Shape inner;
      if (!read_shape(text, at, inner)) return false;
      if (shape.empty()) shape = inner;
    } else {
      std::int64_t value = 0;
      const std::size_t begin = at;
      while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0 &&
             at - begin < 18) {
        value = value * 10 + (text[at++] - '0');
      }
      if (at == begin) return false;
      shape.push_back(value);
    }
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ',') ++at;
  }
}

}  // namespace

std::optional<std::vector<Shape>> parse_input_dims(std::string_view text) {
  std::size_t at = 0;
  skip_spaces(text, at);
  if (at >= text.size() || text[at] != '[') return std::nullopt;
  ++at;
  std::vector<Shape> shapes;
  for (;;) {
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ']') return shapes;
    Shape shape;
    if (!read_shape(text, at, shape)) return std::nullopt;
    shapes.push_back(std::move(shape));
    skip_spaces(text, at);
    if (at < text.size() && text[at] == ',') ++at;
  }
}

}  // namespace stepscope
