// How a terminal report is laid out: the front end (CLI, Python) says how wide the terminal is.
#pragma once

#include <cstddef>

namespace stepscope {

struct TextOptions {
  int top = 10;             // rows in top-N tables
  std::size_t width = 100;  // terminal columns: no line of the report is longer
};

}  // namespace stepscope
