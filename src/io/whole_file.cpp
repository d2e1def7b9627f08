#include "io/whole_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "io/input_open.h"

namespace stepscope::io {

namespace {

Error io_error(const std::string& path, const char* what) {
  return Error{.kind = ErrorKind::kIo,
               .file = path,
               .byte_offset = std::nullopt,
               .message = std::string(what) + std::strerror(errno)};
}

}  // namespace

Result<std::string> read_whole_file(const std::string& path, std::size_t max_bytes,
                                    std::string_view too_large) {
  Result<OpenedInput> opened = open_input(path);
  if (!opened) {
    Error error = std::move(opened).error();
    error.file = path;
    return error;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(::fdopen(opened->fd, "rb"), &std::fclose);
  if (!file) {
    ::close(opened->fd);
    return io_error(path, "cannot open: ");
  }
  std::string text;
  char buffer[1 << 16];
  for (std::size_t n = 0; (n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0;) {
    if (text.size() + n > max_bytes) {
      return Error{.kind = ErrorKind::kLimitExceeded,
                   .file = path,
                   .byte_offset = std::nullopt,
                   .message = std::string(too_large)};
    }
    text.append(buffer, n);
  }
  if (std::ferror(file.get())) return io_error(path, "cannot read: ");
  return text;
}

}  // namespace stepscope::io
