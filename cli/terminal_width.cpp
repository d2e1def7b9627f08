#include "terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace stepscope::cli {

namespace {

constexpr std::size_t kFallbackWidth = 100;

std::size_t columns_variable() {
  const char* value = std::getenv("COLUMNS");
  if (value == nullptr) return 0;
  const std::string_view text(value);
  std::size_t columns = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), columns);
  return error == std::errc() && end == text.data() + text.size() ? columns : 0;
}

std::size_t stdout_terminal_columns() {
  if (::isatty(STDOUT_FILENO) != 1) return 0;
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

}  // namespace

void add_width_option(CLI::App& command, std::size_t& width) {
  command.add_option("--width", width, "report width (default: COLUMNS, the terminal, else 100)")
      ->check(CLI::Range(40, 10000))
      ->type_name("N");
}

std::size_t report_width(std::size_t requested) {
  if (requested > 0) return requested;
  if (const std::size_t columns = columns_variable(); columns > 0) return columns;
  if (const std::size_t columns = stdout_terminal_columns(); columns > 0) return columns;
  return kFallbackWidth;
}

}  // namespace stepscope::cli
