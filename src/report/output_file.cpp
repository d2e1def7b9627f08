#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "stepscope/report.h"

namespace stepscope {

namespace {

Error file_error(const std::string& path, const std::string& what) {
  Error error = make_error(what + ": " + std::strerror(errno));
  error.file = path;
  return error;
}

}  // namespace

Status write_output_file(const std::string& path, const std::string& content) {
  if (path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      return file_error("<stdout>", "write failed");
    }
    return Done{};
  }
  // The temporary file sits beside the target so that the rename is atomic.
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) return file_error(path, "cannot create the output file");
  const bool written = std::fwrite(content.data(), 1, content.size(), file) == content.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    Error error = file_error(path, "write failed");
    std::remove(temporary.c_str());
    return error;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    Error error = file_error(path, "cannot move the output into place");
    std::remove(temporary.c_str());
    return error;
  }
  return Done{};
}

}  // namespace stepscope
