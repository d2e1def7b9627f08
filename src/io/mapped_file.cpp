#include "io/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace stepscope::io {

namespace {

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
    const auto got = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, size_ - position_));
    std::memcpy(destination, region_ + position_, got);
    release(position_, position_ + got);
    position_ += got;
    return got;
  }
  [[nodiscard]] std::uint64_t raw_bytes_consumed() const override {
    return consumed_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::uint64_t raw_bytes_total() const override { return size_; }
  [[nodiscard]] std::string_view mapped() const override {
    return {region_, static_cast<std::size_t>(size_)};
  }
  void release(std::uint64_t begin, std::uint64_t end) override {
    end = std::min(end, size_);
    if (begin >= end) return;
    consumed_.fetch_add(end - begin, std::memory_order_relaxed);
    // The pages are the page cache's: dropping them from this mapping frees nothing on disk,
    // and a later read of them would fault them back in.
    const std::uint64_t first = (begin + page_ - 1) / page_ * page_;
    const std::uint64_t last = end / page_ * page_;
    if (first < last) ::madvise(region_ + first, last - first, MADV_DONTNEED);
  }

 private:
  int fd_;
  char* region_;
  std::size_t region_size_;
  std::uint64_t size_;
  std::size_t page_;
  std::uint64_t position_ = 0;              // of read()
  std::atomic<std::uint64_t> consumed_{0};  // bytes released; read by the progress tick
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
