#include "live/proc_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <utility>

namespace stepscope::live {

ProcFile::ProcFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

ProcFile::~ProcFile() {
  if (fd_ >= 0) ::close(fd_);
}

ProcFile::ProcFile(ProcFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), buffer_(std::move(other.buffer_)) {}

ProcFile& ProcFile::operator=(ProcFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

bool ProcFile::read(std::string_view& content) {
  if (fd_ < 0) return false;
  if (buffer_.empty()) buffer_.resize(4096);
  std::size_t size = 0;
  while (true) {
    const ssize_t n =
        ::pread(fd_, buffer_.data() + size, buffer_.size() - size, static_cast<off_t>(size));
    if (n < 0) return false;
    size += static_cast<std::size_t>(n);
    if (n == 0 || size < buffer_.size()) break;
    buffer_.resize(buffer_.size() * 2);  // /proc/stat on a large machine outgrows the first read
  }
  content = std::string_view(buffer_.data(), size);
  return size > 0;
}

bool find_field(std::string_view text, std::string_view key, std::uint64_t& value) {
  std::size_t at = 0;
  while ((at = text.find(key, at)) != std::string_view::npos) {
    if (at == 0 || text[at - 1] == '\n') break;
    at += key.size();
  }
  if (at == std::string_view::npos) return false;
  std::size_t p = at + key.size();
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t' || text[p] == ':')) ++p;
  const auto [end, error] = std::from_chars(text.data() + p, text.data() + text.size(), value);
  return error == std::errc();
}

}  // namespace stepscope::live
