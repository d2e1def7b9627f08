#include "io/byte_source.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace stepscope::io {

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::uint64_t file_size(std::FILE* file) {
  if (std::fseek(file, 0, SEEK_END) != 0) return 0;
  const long size = std::ftell(file);
  std::rewind(file);
  return size < 0 ? 0 : static_cast<std::uint64_t>(size);
}

class FileSource final : public ByteSource {
 public:
  FileSource(FilePtr file, std::uint64_t size) : file_(std::move(file)), size_(size) {}
  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    const std::size_t got = std::fread(destination, 1, capacity, file_.get());
    if (got == 0 && std::ferror(file_.get())) {
      return make_error(std::string("read failed: ") + std::strerror(errno), consumed_);
    }
    consumed_ += got;
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override { return consumed_; }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }

 private:
  FilePtr file_;
  std::uint64_t size_;
  std::uint64_t consumed_ = 0;
};

class GzipSource final : public ByteSource {
 public:
  GzipSource(FilePtr file, std::uint64_t size) : file_(std::move(file)), size_(size) {
    input_.resize(kInputChunk);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  ~GzipSource() override {
    if (initialised_) inflateEnd(&stream_);
  }

  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    if (!initialised_) {
      stream_ = z_stream{};
      // 16 + MAX_WBITS: expect a gzip header and check its CRC and length trailer.
      if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) return make_error("zlib init failed");
      initialised_ = true;
    }
    stream_.next_out = reinterpret_cast<Bytef*>(destination);
    stream_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, 1U << 30));
    while (stream_.avail_out > 0 && !finished_) {
      if (stream_.avail_in == 0 && !refill()) {
        if (!member_started_) {
          finished_ = true;  // clean end after the last member
          break;
        }
        return make_error("truncated gzip stream: the file ends inside compressed data",
                          decompressed_ + produced(capacity));
      }
      member_started_ = true;
      const int status = inflate(&stream_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        member_started_ = false;
        inflateReset(&stream_);  // another gzip member may follow
      } else if (status == Z_BUF_ERROR) {
        continue;  // needs more input
      } else if (status != Z_OK) {
        const char* why = stream_.msg != nullptr ? stream_.msg : "unknown error";
        return make_error(std::string("corrupt gzip data: ") + why,
                          decompressed_ + produced(capacity));
      }
    }
    const std::size_t got = produced(capacity);
    decompressed_ += got;
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override { return consumed_; }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }
  [[nodiscard]] bool is_compressed() const override { return true; }

 private:
  static constexpr std::size_t kInputChunk = 1 << 20;

  [[nodiscard]] std::size_t produced(std::size_t capacity) const {
    return std::min<std::size_t>(capacity, 1U << 30) - stream_.avail_out;
  }
  bool refill() {
    const std::size_t got = std::fread(input_.data(), 1, input_.size(), file_.get());
    consumed_ += got;
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(got);
    return got > 0;
  }

  FilePtr file_;
  std::uint64_t size_;
  std::uint64_t consumed_ = 0;
  std::uint64_t decompressed_ = 0;
  std::vector<char> input_;
  z_stream stream_{};
  bool initialised_ = false;
  bool member_started_ = false;
  bool finished_ = false;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const char* data, std::size_t size) : data_(data), size_(size) {}
  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    const std::size_t got = std::min(capacity, size_ - position_);
    std::memcpy(destination, data_ + position_, got);
    position_ += got;
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override { return position_; }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }

 private:
  const char* data_;
  std::size_t size_;
  std::size_t position_ = 0;
};

}  // namespace

Result<std::unique_ptr<ByteSource>> open_byte_source(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) return make_error(std::string("cannot open: ") + std::strerror(errno));
  const std::uint64_t size = file_size(file.get());
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, file.get());
  std::rewind(file.get());
  if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    return std::unique_ptr<ByteSource>(std::make_unique<GzipSource>(std::move(file), size));
  }
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(std::move(file), size));
}

std::unique_ptr<ByteSource> memory_byte_source(const char* data, std::size_t size) {
  return std::make_unique<MemorySource>(data, size);
}

}  // namespace stepscope::io
