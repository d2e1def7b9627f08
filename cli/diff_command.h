// `stepscope diff BEFORE AFTER`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace stepscope::cli {

// Exit status when --fail-if-slower PCT is given and the after run is slower than PCT % with
// confidence (0 ok, 1 internal error, 2 bad input are shared with the other commands).
inline constexpr int kExitSlower = 3;

struct DiffArguments {
  std::string before;
  std::string after;
  std::string json_output;  // "" none, "-" stdout
  std::string html_output;  // "" none
  std::optional<std::int64_t> rank;
  int top = 10;
  bool quiet = false;
  std::optional<double> fail_if_slower;  // percent
  std::uint64_t seed = 1;
  int resamples = 10000;
};

void add_diff_command(CLI::App& app, DiffArguments& arguments);
int run_diff(const DiffArguments& arguments);

}  // namespace stepscope::cli
