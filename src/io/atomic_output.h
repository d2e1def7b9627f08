// An output file that appears whole or not at all: bytes go to a temporary file beside the
// destination (so that the final rename is atomic), optionally gzip-compressed, and only
// commit() moves it into place. Destroying it uncommitted removes the temporary.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "stepscope/error.h"

namespace stepscope::io {

enum class Compression : bool { kNone, kGzip };

class AtomicOutputFile {
 public:
  static Result<std::unique_ptr<AtomicOutputFile>> create(const std::string& path,
                                                          Compression compression);
  AtomicOutputFile(const AtomicOutputFile&) = delete;
  AtomicOutputFile& operator=(const AtomicOutputFile&) = delete;
  ~AtomicOutputFile();

  Status write(std::string_view bytes);
  // Flushes, closes and renames the temporary onto the destination.
  Status commit();

  [[nodiscard]] const std::string& temporary_path() const { return temporary_; }

 private:
  AtomicOutputFile(std::string path, std::string temporary, void* file);
  void discard();
  Error error(const std::string& what) const;

  std::string path_;
  std::string temporary_;
  void* file_ = nullptr;  // a zlib gzFile, kept opaque so that zlib.h stays out of the header
};

}  // namespace stepscope::io
