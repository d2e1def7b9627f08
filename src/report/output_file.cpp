#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/atomic_output.h"
#include "stepscope/report.h"

namespace stepscope {

Status write_output_file(const std::string& path, const std::string& content) {
  if (path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      Error error =
          make_error(ErrorKind::kIo, std::string("write failed: ") + std::strerror(errno));
      error.file = "<stdout>";
      return error;
    }
    return Done{};
  }
  Result<std::unique_ptr<io::AtomicOutputFile>> file =
      io::AtomicOutputFile::create(path, io::Compression::kNone);
  if (!file) return std::move(file).error();
  STEPSCOPE_TRY((*file)->write(content));
  return (*file)->commit();
}

}  // namespace stepscope
