// How wide the terminal report may be: --width, else COLUMNS, else the terminal on standard
// output, else 100 columns (a pipe or file has no width to ask).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>

namespace stepscope::cli {

// --width N: 0 (the default) asks the terminal.
void add_width_option(CLI::App& command, std::size_t& width);

// The width to render at; `requested` is --width's value.
[[nodiscard]] std::size_t report_width(std::size_t requested);

}  // namespace stepscope::cli
