// Case-insensitive matching of ASCII names (categories, kernel and call names). std::tolower
// goes through the locale on every character, which showed up as a third of a profile.
#pragma once

#include <algorithm>
#include <string_view>

namespace stepscope {

constexpr char ascii_lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}

// `lower_needle` must be lower case already.
inline bool contains_ignoring_case(std::string_view text, std::string_view lower_needle) {
  return std::search(text.begin(), text.end(), lower_needle.begin(), lower_needle.end(),
                     [](char a, char b) { return ascii_lower(a) == b; }) != text.end();
}

inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return ascii_lower(x) == ascii_lower(y);
         });
}

}  // namespace stepscope
