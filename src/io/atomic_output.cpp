#include "io/atomic_output.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

namespace stepscope::io {

namespace {

constexpr unsigned kGzipBufferBytes = 1U << 20;

// Level 1 for gzip: the file is written once, to be viewed; the fastest level already shrinks
// trace JSON many times. "T" makes zlib write plain bytes through the same interface.
const char* open_mode(Compression compression) {
  return compression == Compression::kGzip ? "wb1" : "wbT";
}

std::string zlib_message(gzFile file) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_ERRNO) return std::strerror(errno);
  return text != nullptr ? text : "unknown zlib error";
}

}  // namespace

Result<std::unique_ptr<AtomicOutputFile>> AtomicOutputFile::create(const std::string& path,
                                                                   Compression compression) {
  std::string temporary = path + ".tmp." + std::to_string(::getpid());
  gzFile file = gzopen(temporary.c_str(), open_mode(compression));
  if (file == nullptr) {
    Error error =
        make_error(ErrorKind::kIo, std::string("cannot create the output file: ") +
                                       (errno != 0 ? std::strerror(errno) : "out of memory"));
    error.file = path;
    return error;
  }
  gzbuffer(file, kGzipBufferBytes);
  return std::unique_ptr<AtomicOutputFile>(
      new AtomicOutputFile(path, std::move(temporary), static_cast<void*>(file)));
}

AtomicOutputFile::AtomicOutputFile(std::string path, std::string temporary, void* file)
    : path_(std::move(path)), temporary_(std::move(temporary)), file_(file) {}

AtomicOutputFile::~AtomicOutputFile() { discard(); }

void AtomicOutputFile::discard() {
  if (file_ == nullptr) return;
  gzclose(static_cast<gzFile>(file_));
  file_ = nullptr;
  std::remove(temporary_.c_str());
}

Error AtomicOutputFile::error(const std::string& what) const {
  Error out = make_error(ErrorKind::kIo, what);
  out.file = path_;
  return out;
}

Status AtomicOutputFile::write(std::string_view bytes) {
  if (file_ == nullptr) return error("write after the output file was closed");
  auto* file = static_cast<gzFile>(file_);
  // gzwrite takes an unsigned length: write in pieces that fit.
  constexpr std::size_t kPiece = std::numeric_limits<int>::max() / 2;
  while (!bytes.empty()) {
    const std::size_t piece = std::min(bytes.size(), kPiece);
    if (gzwrite(file, bytes.data(), static_cast<unsigned>(piece)) != static_cast<int>(piece)) {
      return error("write failed: " + zlib_message(file));
    }
    bytes.remove_prefix(piece);
  }
  return Done{};
}

Status AtomicOutputFile::commit() {
  if (file_ == nullptr) return error("the output file was already closed");
  auto* file = static_cast<gzFile>(file_);
  file_ = nullptr;
  const int closed = gzclose(file);
  if (closed != Z_OK) {
    const char* why = closed == Z_ERRNO ? std::strerror(errno) : "compression failed";
    std::remove(temporary_.c_str());
    return error(std::string("write failed: ") + why);
  }
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    Error out = error(std::string("cannot move the output into place: ") + std::strerror(errno));
    std::remove(temporary_.c_str());
    return out;
  }
  return Done{};
}

}  // namespace stepscope::io
