// A small file read whole, for the readers of documents stepscope writes itself (the monitor
// timeline, the plan measurement): errors name the file, and a file past `max_bytes` is refused
// before it is read further.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "stepscope/error.h"

namespace stepscope::io {

// `too_large`: the message when the file passes max_bytes (say what the file should have been).
Result<std::string> read_whole_file(const std::string& path, std::size_t max_bytes,
                                    std::string_view too_large);

}  // namespace stepscope::io
