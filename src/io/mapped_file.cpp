#include "io/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace stepscope::io {

namespace {

// Pages behind the reader are dropped from the mapping this many bytes at a time: often enough
// that the mapping's share of peak memory stays small, rarely enough that the madvise calls
// cost nothing measurable (128 for a 1 GiB trace).
constexpr std::uint64_t kReleaseStep = std::uint64_t{8} << 20;

class MappedFileSource final : public ByteSource {
 public:
  MappedFileSource(int fd, char* region, std::size_t region_size, std::uint64_t size,
                   std::size_t page)
      : fd_(fd), region_(region), region_size_(region_size), size_(size), page_(page) {}
  MappedFileSource(const MappedFileSource&) = delete;
  MappedFileSource& operator=(const MappedFileSource&) = delete;
  ~MappedFileSource() override {
    ::munmap(region_, region_size_);
    ::close(fd_);
  }

  Result<std::size_t> read(char* destination, std::size_t capacity) override {
    const std::uint64_t position = consumed_.load(std::memory_order_relaxed);
    const auto got = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, size_ - position));
    std::memcpy(destination, region_ + position, got);
    release_before(position + got);
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return consumed_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }
  [[nodiscard]] std::string_view mapped() const override {
    return {region_, static_cast<std::size_t>(size_)};
  }
  void release_before(std::uint64_t offset) override {
    offset = std::min(offset, size_);
    if (offset > consumed_.load(std::memory_order_relaxed)) {
      consumed_.store(offset, std::memory_order_relaxed);
    }
    const std::uint64_t whole_pages = offset / page_ * page_;
    if (whole_pages - released_ < kReleaseStep) return;
    // The pages are the page cache's: dropping them from this mapping frees nothing on disk,
    // and a later read of them would fault them back in.
    ::madvise(region_ + released_, whole_pages - released_, MADV_DONTNEED);
    released_ = whole_pages;
  }

 private:
  int fd_;
  char* region_;
  std::size_t region_size_;
  std::uint64_t size_;
  std::size_t page_;
  std::uint64_t released_ = 0;              // pages before this offset have left the mapping
  std::atomic<std::uint64_t> consumed_{0};  // read by the progress tick on another thread
};

}  // namespace

std::unique_ptr<ByteSource> map_file_source(int fd, std::uint64_t size) {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (size == 0 || page_size <= 0 || size > SIZE_MAX / 2) return nullptr;
  const auto page = static_cast<std::size_t>(page_size);
  const std::size_t file_pages = (static_cast<std::size_t>(size) + page - 1) / page * page;
  // One page of zeros after the file's last page: scanners read up to 64 bytes past the end,
  // and a file whose size is a multiple of the page size has nothing mapped there otherwise.
  const std::size_t region_size = file_pages + page;
  void* region = ::mmap(nullptr, region_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  void* file =
      ::mmap(region, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (file == MAP_FAILED) {
    ::munmap(region, region_size);
    return nullptr;
  }
  return std::make_unique<MappedFileSource>(fd, static_cast<char*>(region), region_size, size,
                                            page);
}

}  // namespace stepscope::io
