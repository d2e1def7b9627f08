// A one-line progress indicator on standard error, shown only on a terminal and never with
// --quiet, so that redirected output stays clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace stepscope::cli {

class Progress {
 public:
  Progress(bool enabled, std::string label);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::uint64_t done, std::uint64_t total);
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point last_draw_{};
};

// True when standard error is a terminal.
bool stderr_is_terminal();

}  // namespace stepscope::cli
