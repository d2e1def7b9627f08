// `stepscope memory SNAPSHOT.pickle`: options and the run, nothing else.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace stepscope::cli {

struct MemoryArguments {
  std::string path;
  std::string json_output;  // "" none, "-" stdout
  int top = 10;
  bool quiet = false;
};

void add_memory_command(CLI::App& app, MemoryArguments& arguments);
int run_memory(const MemoryArguments& arguments);

}  // namespace stepscope::cli
