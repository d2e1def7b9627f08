// Reads the `Input Dims` argument (e.g. `[[64, 1024], [1024, 4096], []]`) into shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace stepscope {

using Shape = std::vector<std::int64_t>;

// One shape per input; an input that is not a tensor (a scalar, `[]`) is an empty shape.
// nullopt for text that is not a list of integer lists.
std::optional<std::vector<Shape>> parse_input_dims(std::string_view text);

}  // namespace stepscope
