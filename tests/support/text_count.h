// How often a text holds a needle, without overlaps: what tests of rendered pages and reports
// count (rows, links, markers).
#pragma once

#include <cstddef>
#include <string>

namespace stepscope::testing {

inline std::size_t occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

}  // namespace stepscope::testing
