// An output file that appears whole or not at all: bytes go to a temporary file beside the
// destination (so that the final rename is atomic), optionally gzip-compressed, and only
// commit() moves it into place. Destroying it uncommitted removes the temporary, and so does
// SIGINT, SIGTERM or SIGHUP arriving while it is open (when those signals have their default
// action), so that an interrupted write leaves nothing behind.
//
// What is never replaced: "-" is standard output; a path that exists and is not a regular file
// (a character device such as /dev/null, a FIFO, a socket) is written straight through; a
// symlink is followed and its final target replaced, so the link itself stays.
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

  // Empty when the output is written straight through (stdout, a device, a FIFO).
  [[nodiscard]] const std::string& temporary_path() const { return temporary_; }
  // The file that commit() replaces: the path with its symlinks resolved.
  [[nodiscard]] const std::string& destination() const { return destination_; }

 private:
  AtomicOutputFile(std::string path, std::string destination, std::string temporary, void* file);
  void discard();
  Error error(const std::string& what) const;

  std::string path_;
  std::string destination_;
  std::string temporary_;
  int cleanup_slot_ = -1;  // its entry in the table the signal handler removes
  void* file_ = nullptr;   // a zlib gzFile, kept opaque so that zlib.h stays out of the header
};

// The path with every symlink along its last component followed (relative targets are taken
// from the link's folder); a dangling link resolves to the file it names. Fails on a loop.
Result<std::string> resolve_output_path(const std::string& path);

}  // namespace stepscope::io
