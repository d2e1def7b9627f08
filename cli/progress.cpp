#include "progress.h"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

namespace stepscope::cli {

namespace {
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(bool enabled, std::string label) : enabled_(enabled), label_(std::move(label)) {}

Progress::~Progress() { finish(); }

void Progress::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  drawn_ = true;
  const double share = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(share * kWidth);
  fmt::print(stderr, "\r{} [{}{}] {:5.1f} %  {:.0f} MB", label_, std::string(filled, '#'),
             std::string(kWidth - filled, ' '), share * 100.0, static_cast<double>(done) / 1e6);
  std::fflush(stderr);
}

void Progress::finish() {
  if (!enabled_ || !drawn_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace stepscope::cli
