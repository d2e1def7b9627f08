#include "io/byte_source.h"

#include "io/input_open.h"
#include "io/mapped_file.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#ifdef STEPSCOPE_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace stepscope::io {

namespace {

// A file opened for reading, with the bytes already taken from it to sniff its format kept in
// front: a pipe or FIFO cannot be rewound, so those bytes are handed out again here.
class RawFile {
 public:
  RawFile(int fd, std::string prefix) : fd_(fd), prefix_(std::move(prefix)) {}
  RawFile(const RawFile&) = delete;
  RawFile& operator=(const RawFile&) = delete;
  ~RawFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  int release() { return std::exchange(fd_, -1); }
  [[nodiscard]] int descriptor() const { return fd_; }
  // Like read(2): the count, 0 at the end, -1 with errno on a failure.
  ssize_t read(char* destination, std::size_t capacity) {
    if (prefix_used_ < prefix_.size()) {
      const std::size_t n = std::min(capacity, prefix_.size() - prefix_used_);
      std::memcpy(destination, prefix_.data() + prefix_used_, n);
      prefix_used_ += n;
      return static_cast<ssize_t>(n);
    }
    for (;;) {
      const ssize_t got = ::read(fd_, destination, capacity);
      if (got < 0 && errno == EINTR) continue;
      return got;
    }
  }
  // Fills as much of `capacity` as the file gives (a pipe hands out small pieces).
  ssize_t read_full(char* destination, std::size_t capacity) {
    std::size_t total = 0;
    while (total < capacity) {
      const ssize_t got = read(destination + total, capacity - total);
      if (got < 0) return total > 0 ? static_cast<ssize_t>(total) : got;
      if (got == 0) break;
      total += static_cast<std::size_t>(got);
    }
    return static_cast<ssize_t>(total);
  }

 private:
  int fd_;
  std::string prefix_;
  std::size_t prefix_used_ = 0;
};
using FilePtr = std::unique_ptr<RawFile>;

// Both offsets, since "byte N" alone leaves a reader guessing which stream it counts.
Error gzip_error(const std::string& what, std::uint64_t decompressed, std::uint64_t compressed) {
  return make_error(ErrorKind::kNotJson, what + " at decompressed byte " +
                                             std::to_string(decompressed) + " (compressed byte " +
                                             std::to_string(compressed) + ")");
}

// After the last gzip member, zeros up to the end are padding (tape and block devices, some
// uploaders), accepted as `gzip -dc` accepts them; anything else there is an error.
template <typename Refill>
Status skip_zero_padding(const unsigned char* next, std::size_t available, Refill refill,
                         std::uint64_t decompressed, std::uint64_t compressed_at) {
  for (;;) {
    for (std::size_t i = 0; i < available; ++i) {
      if (next[i] != 0) {
        return gzip_error(
            "data after the end of the gzip stream that is neither gzip nor zero "
            "padding",
            decompressed, compressed_at + i);
      }
    }
    compressed_at += available;
    if (!refill(next, available)) return Done{};
  }
}

class FileSource final : public ByteSource {
 public:
  FileSource(FilePtr file, std::uint64_t size) : file_(std::move(file)), size_(size) {}
  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    const ssize_t got = file_->read(destination, capacity);
    if (got < 0) {
      return make_error(ErrorKind::kIo, std::string("read failed: ") + std::strerror(errno),
                        consumed_);
    }
    consumed_ += static_cast<std::uint64_t>(got);
    return static_cast<std::size_t>(got);
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return consumed_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }

 private:
  FilePtr file_;
  std::uint64_t size_;
  std::atomic<std::uint64_t> consumed_{0};  // read by the progress tick on another thread
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
      if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK)
        return make_error(ErrorKind::kLimitExceeded, "zlib init failed (out of memory)");
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
        return gzip_error("truncated gzip stream: the file ends inside compressed data",
                          decompressed_ + produced(capacity), consumed_);
      }
      if (!member_started_ && stream_.next_in[0] == 0) {
        auto more = [this](const unsigned char*& next, std::size_t& available) {
          if (!refill()) return false;
          next = stream_.next_in;
          available = stream_.avail_in;
          return true;
        };
        STEPSCOPE_TRY(skip_zero_padding(stream_.next_in, stream_.avail_in, more,
                                        decompressed_ + produced(capacity),
                                        consumed_ - stream_.avail_in));
        finished_ = true;
        break;
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
        return gzip_error(std::string("corrupt gzip data: ") + why,
                          decompressed_ + produced(capacity), consumed_ - stream_.avail_in);
      }
    }
    const std::size_t got = produced(capacity);
    decompressed_ += got;
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return consumed_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }
  [[nodiscard]] bool is_compressed() const override { return true; }

 private:
  static constexpr std::size_t kInputChunk = 1 << 20;

  [[nodiscard]] std::size_t produced(std::size_t capacity) const {
    return std::min<std::size_t>(capacity, 1U << 30) - stream_.avail_out;
  }
  bool refill() {
    const ssize_t read = file_->read_full(input_.data(), input_.size());
    const std::size_t got = read > 0 ? static_cast<std::size_t>(read) : 0;
    consumed_ += got;
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(got);
    return got > 0;
  }

  FilePtr file_;
  std::uint64_t size_;
  std::atomic<std::uint64_t> consumed_{0};  // read by the progress tick on another thread
  std::uint64_t decompressed_ = 0;
  std::vector<char> input_;
  z_stream stream_{};
  bool initialised_ = false;
  bool member_started_ = false;
  bool finished_ = false;
};

#ifdef STEPSCOPE_HAVE_ISAL
// Intel ISA-L's inflate: streaming like zlib and two to three times faster, which is what lets
// `analyze` on a .json.gz keep pace with `gzip -dc`.
class IsalGzipSource final : public ByteSource {
 public:
  IsalGzipSource(FilePtr file, std::uint64_t size)
      : file_(std::move(file)), size_(size), state_(std::make_unique<inflate_state>()) {
    input_.resize(kInputChunk);
    isal_inflate_init(state_.get());
    state_->crc_flag = ISAL_GZIP;
  }

  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    inflate_state& state = *state_;
    state.next_out = reinterpret_cast<std::uint8_t*>(destination);
    state.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(capacity, 1U << 30));
    const std::uint32_t requested = state.avail_out;
    while (state.avail_out > 0 && !finished_) {
      if (state.block_state == ISAL_BLOCK_FINISH) {
        if (state.avail_in == 0 && !refill()) {
          finished_ = true;  // clean end after the last member
          break;
        }
        if (state.next_in[0] == 0) {
          auto more = [this](const unsigned char*& next, std::size_t& available) {
            if (!refill()) return false;
            next = state_->next_in;
            available = state_->avail_in;
            return true;
          };
          STEPSCOPE_TRY(skip_zero_padding(state.next_in, state.avail_in, more,
                                          decompressed_ + (requested - state.avail_out),
                                          consumed_ - state.avail_in));
          finished_ = true;
          break;
        }
        isal_inflate_reset(&state);  // another gzip member follows
        state.crc_flag = ISAL_GZIP;
        continue;
      }
      if (state.avail_in == 0 && !refill()) {
        return gzip_error("truncated gzip stream: the file ends inside compressed data",
                          decompressed_ + (requested - state.avail_out), consumed_);
      }
      const int status = isal_inflate(&state);
      if (status < 0) {
        return gzip_error(std::string("corrupt gzip data: ") + describe(status),
                          decompressed_ + (requested - state.avail_out),
                          consumed_ - state.avail_in);
      }
    }
    const std::size_t got = requested - state.avail_out;
    decompressed_ += got;
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return consumed_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }
  [[nodiscard]] bool is_compressed() const override { return true; }

 private:
  static constexpr std::size_t kInputChunk = 1 << 20;

  static const char* describe(int status) {
    switch (status) {
      case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
      case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
      case ISAL_INVALID_LOOKBACK:
        return "invalid back-reference distance";
      case ISAL_INVALID_WRAPPER:
        return "invalid gzip header";
      case ISAL_UNSUPPORTED_METHOD:
        return "unsupported compression method";
      case ISAL_INCORRECT_CHECKSUM:
        return "CRC mismatch";
      default:
        return "decompression failed";
    }
  }
  bool refill() {
    const ssize_t read = file_->read_full(input_.data(), input_.size());
    const std::size_t got = read > 0 ? static_cast<std::size_t>(read) : 0;
    consumed_ += got;
    state_->next_in = reinterpret_cast<std::uint8_t*>(input_.data());
    state_->avail_in = static_cast<std::uint32_t>(got);
    return got > 0;
  }

  FilePtr file_;
  std::uint64_t size_;
  std::unique_ptr<inflate_state> state_;
  std::atomic<std::uint64_t> consumed_{0};  // read by the progress tick on another thread
  std::uint64_t decompressed_ = 0;
  std::vector<char> input_;
  bool finished_ = false;
};
using FastGzipSource = IsalGzipSource;
#else
using FastGzipSource = GzipSource;
#endif

class MemorySource final : public ByteSource {
 public:
  MemorySource(const char* data, std::size_t size, bool padded)
      : data_(data), size_(size), padded_(padded) {}
  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    const std::size_t position = position_.load(std::memory_order_relaxed);
    const std::size_t got = std::min(capacity, size_ - position);
    std::memcpy(destination, data_ + position, got);
    position_.store(position + got, std::memory_order_relaxed);
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return position_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }
  [[nodiscard]] std::string_view mapped() const override {
    return padded_ ? std::string_view(data_, size_) : std::string_view();
  }

 private:
  const char* data_;
  std::size_t size_;
  bool padded_;
  std::atomic<std::size_t> position_{0};  // read by the progress tick on another thread
};

}  // namespace

Result<std::unique_ptr<ByteSource>> open_byte_source(const std::string& path) {
  STEPSCOPE_ASSIGN_OR_RETURN(const OpenedInput opened, open_input(path));
  auto owned = std::make_unique<RawFile>(opened.fd, std::string());
  const struct stat& info = opened.info;
  const std::uint64_t size =
      S_ISREG(info.st_mode) ? static_cast<std::uint64_t>(std::max<off_t>(info.st_size, 0)) : 0;
  // Sniff the gzip magic, keeping the bytes: a pipe cannot give them again.
  char magic[2] = {0, 0};
  const ssize_t got = owned->read_full(magic, 2);
  if (got < 0) {
    return make_error(ErrorKind::kIo, std::string("read failed: ") + std::strerror(errno), 0);
  }
  auto file = std::make_unique<RawFile>(owned->release(),
                                        std::string(magic, static_cast<std::size_t>(got)));
  if (got == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
      static_cast<unsigned char>(magic[1]) == 0x8b) {
    return std::unique_ptr<ByteSource>(std::make_unique<FastGzipSource>(std::move(file), size));
  }
  // A plain file is mapped (standard input is not: its position need not be the start).
  if (S_ISREG(info.st_mode) && path != "-") {
    if (std::unique_ptr<ByteSource> mapped = map_file_source(file->descriptor(), size)) {
      file->release();
      return mapped;
    }
  }
  return std::unique_ptr<ByteSource>(std::make_unique<FileSource>(std::move(file), size));
}

std::unique_ptr<ByteSource> memory_byte_source(const char* data, std::size_t size) {
  return std::make_unique<MemorySource>(data, size, false);
}

std::unique_ptr<ByteSource> padded_memory_byte_source(const char* data, std::size_t size) {
  return std::make_unique<MemorySource>(data, size, true);
}

}  // namespace stepscope::io
