// Opening an input the same way for every reader: standard input for "-", anything else without
// blocking, so that a FIFO with no writer does not hang in open(); a FIFO then waits a bounded
// time for its first bytes, not for ever. Folders are refused.
#pragma once

#include <sys/stat.h>

#include <string>

#include "stepscope/error.h"

namespace stepscope::io {

struct OpenedInput {
  int fd = -1;  // blocking, close-on-exec; the caller closes it
  struct stat info {};
};

Result<OpenedInput> open_input(const std::string& path);

}  // namespace stepscope::io
