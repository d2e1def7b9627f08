// A plain file read through a read-only memory mapping: the trace importer scans the mapped
// bytes in place, which spares the copy read() makes of every byte (about a tenth of the import
// of a large .json on one thread).
#pragma once

#include <cstdint>
#include <memory>

#include "io/byte_source.h"

namespace stepscope::io {

// A source over the first `size` bytes of the regular file open as `fd`, mapped; nullptr when
// the file cannot be mapped (the caller then reads it). The source owns `fd` only on success.
//
// A mapping reads the file as it is on disk: were another process to truncate the file while it
// is being read, the missing pages would fault. Traces are files a profiler has finished
// writing, so this is taken as a fair trade for the copy saved.
std::unique_ptr<ByteSource> map_file_source(int fd, std::uint64_t size);

}  // namespace stepscope::io
