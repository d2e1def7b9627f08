#include "render/name_cut.h"

#include <vector>

#include "render/utf8.h"

namespace stepscope::render {

std::string cut_name_middle(std::string_view name, std::size_t max_characters) {
  std::vector<std::string_view> characters;
  for_each_code_point(name,
                      [&](std::uint32_t, std::string_view bytes) { characters.push_back(bytes); });
  auto join = [&](std::size_t begin, std::size_t end) {
    std::string out;
    for (std::size_t i = begin; i < end; ++i) out += characters[i];
    return out;
  };
  if (characters.size() <= max_characters) return join(0, characters.size());
  if (max_characters == 0) return {};
  // Two fifths for the head (return type, namespace), the rest for the tail, which tells
  // template instances and overloads apart.
  const std::size_t budget = max_characters - 1;
  const std::size_t head = budget * 2 / 5;
  const std::size_t tail = budget - head;
  return join(0, head) + "…" + join(characters.size() - tail, characters.size());
}

}  // namespace stepscope::render
