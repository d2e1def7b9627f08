#include "io/inflate_ahead.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <new>
#include <utility>

#include "io/whole_file.h"

namespace stepscope::io {

namespace {

// Inflated and shown to the reader this much at a time: often enough that it seldom waits.
constexpr std::size_t kInflateChunk = 256 << 10;
// The reader is shown at most this much past what it has, so that it comes back often and the
// inflating thread knows closely how far it has got when it chooses where to take over.
constexpr std::uint64_t kShowAhead = 256 << 10;
// Readers scan up to 64 bytes past what they are shown: they are shown only bytes with 64
// written bytes after them while the text grows (after its end, the mapping's zeros).
constexpr std::uint64_t kOverread = 64;

}  // namespace

InflatingBuffer::InflatingBuffer(std::unique_ptr<ByteSource> gzip, char* region,
                                 std::size_t region_size, std::size_t page,
                                 std::size_t release_unit)
    : gzip_(std::move(gzip)),
      region_(region),
      region_size_(region_size),
      page_(page),
      release_unit_(release_unit) {}

InflatingBuffer::~InflatingBuffer() { ::munmap(region_, region_size_); }

bool InflatingBuffer::inflate_all(const ChooseHandOver& choose) {
  // On a thread of its own: running out of memory must reach the reader as an error, not end
  // the process (nor leave the reader waiting).
  try {
    return inflate_all_or_throw(choose);
  } catch (const std::bad_alloc&) {
    fail(make_error(ErrorKind::kLimitExceeded, "out of memory inflating the gzip data"));
    return false;
  }
}

bool InflatingBuffer::inflate_all_or_throw(const ChooseHandOver& choose) {
  // A page of the region stays unwritten after the text: the readers' zero padding.
  const std::uint64_t room = region_size_ - page_;
  std::uint64_t inflated = 0;
  for (;;) {
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(kInflateChunk, room - inflated));
    if (want == 0) {
      char probe = 0;
      Result<std::size_t> more = gzip_->read(&probe, 1);
      if (!more) {
        fail(std::move(more).error());
        return false;
      }
      if (*more == 0) break;
      std::lock_guard lock(mutex_);
      overflowed_ = true;
      error_ = make_error(ErrorKind::kLimitExceeded,
                          "the gzip data inflates to more than its trailer says");
      grew_.notify_all();
      return false;
    }
    Result<std::size_t> got = gzip_->read(region_ + inflated, want);
    if (!got) {
      publish(inflated + kOverread);  // nothing more is written: all of it can be read
      fail(std::move(got).error());
      return false;
    }
    if (*got == 0) break;
    inflated += *got;
    publish(inflated);
  }
  std::lock_guard lock(mutex_);
  size_ = inflated;
  shown_ = inflated;
  complete_ = true;
  handed_over_from_ = choose(std::string_view(region_, inflated), handed_);
  grew_.notify_all();
  return true;
}

void InflatingBuffer::publish(std::uint64_t inflated) {
  std::lock_guard lock(mutex_);
  shown_ = inflated > kOverread ? inflated - kOverread : 0;
  grew_.notify_all();
}

void InflatingBuffer::fail(Error error) {
  std::lock_guard lock(mutex_);
  inflation_error_ = error;
  error_ = std::move(error);
  grew_.notify_all();
}

std::optional<Error> InflatingBuffer::inflation_error() const {
  std::lock_guard lock(mutex_);
  return inflation_error_;
}

bool InflatingBuffer::overflowed() const {
  std::lock_guard lock(mutex_);
  return overflowed_;
}

std::string_view InflatingBuffer::text() const {
  std::lock_guard lock(mutex_);
  return complete_ ? std::string_view(region_, size_) : std::string_view();
}

Result<ByteSource::Growth> InflatingBuffer::wait_for_more(std::uint64_t have) {
  std::unique_lock lock(mutex_);
  grew_.wait(lock, [&] { return complete_ || shown_ > have || error_.has_value(); });
  if (complete_) {
    handed_ = size_;
    return Growth{size_, true, std::exchange(handed_over_from_, std::nullopt)};  // told once
  }
  if (shown_ <= have) return *error_;  // the text before the error has been read
  handed_ = std::max(handed_, std::min(shown_, have + kShowAhead));
  return Growth{handed_, false, std::nullopt};
}

Result<std::size_t> InflatingBuffer::read(char* destination, std::size_t capacity) {
  // For completeness: the importer reads this source in place, through wait_for_more().
  STEPSCOPE_ASSIGN_OR_RETURN(const Growth growth, wait_for_more(read_position_));
  const auto got =
      static_cast<std::size_t>(std::min<std::uint64_t>(capacity, growth.size - read_position_));
  std::memcpy(destination, region_ + read_position_, got);
  read_position_ += got;
  return got;
}

std::uint64_t InflatingBuffer::raw_bytes_consumed() const { return gzip_->raw_bytes_consumed(); }
std::uint64_t InflatingBuffer::raw_bytes_total() const { return gzip_->raw_bytes_total(); }

std::string_view InflatingBuffer::mapped() const {
  std::lock_guard lock(mutex_);
  return {region_, static_cast<std::size_t>(complete_ ? size_ : shown_)};
}

void InflatingBuffer::release(std::uint64_t begin, std::uint64_t end) {
  // Pages wholly inside what a reader is done with go back to the system (an anonymous mapping:
  // they read as zeros afterwards, and no reader reads them again).
  // Whole units only: releasing part of a huge page splits it and frees nothing until the
  // kernel gets round to the split.
  const auto [first, last] =
      whole_units_within(reinterpret_cast<std::uintptr_t>(region_), begin, end, release_unit_);
  if (first < last) ::madvise(region_ + first, last - first, MADV_DONTNEED);
}

OffsetRange whole_units_within(std::uintptr_t base, std::uint64_t begin, std::uint64_t end,
                               std::uint64_t unit) {
  const std::uint64_t low = (base + begin + unit - 1) / unit * unit;
  const std::uint64_t high = (base + end) / unit * unit;
  if (high <= low) return {};
  return {low - base, high - base};
}

namespace {

// The size of the kernel's transparent huge pages, when it has them.
std::optional<std::size_t> huge_page_size() {
  const Result<std::string> text =
      read_whole_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", 64, "too long");
  if (!text) return std::nullopt;
  std::size_t size = 0;
  const auto [stop, error] = std::from_chars(text->data(), text->data() + text->size(), size);
  if (error != std::errc() || stop == text->data() || size == 0) return std::nullopt;
  return size;
}

// The size of the pages backing `region` from now on: huge pages when the kernel takes the
// advice, else `page`. The inflating thread writes every byte of the text once, and in 4 KiB
// pages it spent much of its time on their first touch (a 35 MB text: the run's page faults
// fell from about 12,700 to 5,000 with 16 huge pages). On `trace_diff/control` (.json.gz, two
// threads, 2-core VM), 40 alternated pairs: median 0.0831 s -> 0.0785 s, faster in 33 pairs. Where
// the kernel has them only on request (`madvise`, Debian's default), this is the request.
std::size_t advise_huge_pages(char* region, std::size_t region_size, std::size_t page) {
#if defined(MADV_HUGEPAGE)
  const std::optional<std::size_t> huge = huge_page_size();
  // Below four huge pages few faults are saved, and releasing in whole huge pages would keep a
  // large share of the text in memory behind the reader.
  if (!huge || *huge <= page || region_size < 4 * *huge) return page;
  if (::madvise(region, region_size, MADV_HUGEPAGE) != 0) return page;
  return *huge;
#else
  (void)region;
  (void)region_size;
  return page;
#endif
}

// The size a gzip file's trailer gives (its last member's, modulo 4 GiB), or nothing.
std::optional<std::uint64_t> gzip_trailer_size(int fd, std::uint64_t file_size) {
  constexpr std::uint64_t kSmallestGzip = 18;  // header and trailer
  if (file_size < kSmallestGzip) return std::nullopt;
  unsigned char magic[2] = {0, 0};
  unsigned char trailer[4] = {0, 0, 0, 0};
  if (::pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) return std::nullopt;
  if (::pread(fd, trailer, 4, static_cast<off_t>(file_size - 4)) != 4) return std::nullopt;
  return std::uint64_t{trailer[0]} | std::uint64_t{trailer[1]} << 8 |
         std::uint64_t{trailer[2]} << 16 | std::uint64_t{trailer[3]} << 24;
}

// The size a regular gzip file's trailer promises, when it is no smaller than the file (trace
// JSON compresses well: a smaller one is only the last of several members').
std::optional<std::uint64_t> promised_size(const std::string& path) {
  // Anything but a regular file is not opened here: opening a FIFO to look at it would let its
  // writer's open() return, and the bytes it then writes would be lost when this closes it.
  struct stat before {};
  if (::stat(path.c_str(), &before) != 0 || !S_ISREG(before.st_mode)) return std::nullopt;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::nullopt;
  struct stat info {};
  std::uint64_t promised = 0;
  bool plausible = false;
  // Checked again on what was opened: the path may have been replaced since the stat.
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
    const auto file_size = static_cast<std::uint64_t>(std::max<off_t>(info.st_size, 0));
    if (const std::optional<std::uint64_t> trailer = gzip_trailer_size(fd, file_size)) {
      promised = *trailer;
      plausible = promised >= file_size;
    }
  }
  ::close(fd);
  return plausible ? std::optional<std::uint64_t>(promised) : std::nullopt;
}

}  // namespace

std::unique_ptr<InflatingBuffer> inflating_buffer_for(const std::string& path,
                                                      std::uint64_t min_bytes,
                                                      std::uint64_t max_bytes) {
  const std::optional<std::uint64_t> promised = promised_size(path);
  if (!promised || *promised < min_bytes || *promised > max_bytes) return nullptr;
  Result<std::unique_ptr<ByteSource>> gzip = open_byte_source(path);
  if (!gzip || !(*gzip)->is_compressed()) return nullptr;
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (page_size <= 0) return nullptr;
  const auto page = static_cast<std::size_t>(page_size);
  // The promised size, a page of padding, and a page to spare: reserved, not committed.
  const std::size_t region_size =
      (static_cast<std::size_t>(*promised) + page - 1) / page * page + 2 * page;
  void* region = ::mmap(nullptr, region_size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  char* const bytes = static_cast<char*>(region);
  const std::size_t release_unit = advise_huge_pages(bytes, region_size, page);
  return std::make_unique<InflatingBuffer>(std::move(*gzip), bytes, region_size, page,
                                           release_unit);
}

}  // namespace stepscope::io
