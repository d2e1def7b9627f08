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

namespace {

std::size_t count_code_points(std::string_view text) {
  std::size_t n = 0;
  for_each_code_point(text, [&](std::uint32_t, std::string_view) { ++n; });
  return n;
}

// `name` without a trailing balanced "(...)", or unchanged when it has none or is nothing else.
std::string_view without_parameter_list(std::string_view name) {
  if (name.empty() || name.back() != ')') return name;
  std::size_t depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      std::string_view head = name.substr(0, i);
      while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
      return head.empty() ? name : head;
    }
  }
  return name;
}

}  // namespace

std::string shorten_name(std::string_view name, std::size_t max_characters) {
  if (count_code_points(name) <= max_characters) return cut_name_middle(name, max_characters);
  return cut_name_middle(without_parameter_list(name), max_characters);
}

}  // namespace stepscope::render
