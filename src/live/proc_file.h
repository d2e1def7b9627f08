// A /proc file kept open and re-read with pread at offset 0: the kernel regenerates the text on
// every read, and skipping open/close per sample halves the monitor's cost. Once the process has
// gone, reads fail (ESRCH) instead of following a reused pid.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stepscope::live {

class ProcFile {
 public:
  ProcFile() = default;
  explicit ProcFile(const std::string& path);
  ~ProcFile();
  ProcFile(ProcFile&& other) noexcept;
  ProcFile& operator=(ProcFile&& other) noexcept;
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;

  [[nodiscard]] bool is_open() const { return fd_ >= 0; }
  // The whole current content, or false when it cannot be read (the view stays valid until the
  // next read).
  bool read(std::string_view& content);

 private:
  int fd_ = -1;
  std::string buffer_;
};

// The value after `key` in "key: value" text (/proc/PID/status, /proc/meminfo, /proc/PID/io).
bool find_field(std::string_view text, std::string_view key, std::uint64_t& value);

}  // namespace stepscope::live
