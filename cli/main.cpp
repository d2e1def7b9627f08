#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "stepscope/load.h"

int main(int argc, char** argv) {
  CLI::App app{"stepscope: a performance doctor for PyTorch profiler traces"};
  std::string path;
  auto* analyze = app.add_subcommand("analyze", "analyze a trace file or folder");
  analyze->add_option("PATH", path)->required();
  CLI11_PARSE(app, argc, argv);
  auto set = stepscope::load_traces(path);
  if (!set) {
    fmt::print(stderr, "stepscope: error: {}\n", set.error().describe());
    return 2;
  }
  for (const auto& t : set->ranks) {
    fmt::print("rank {} ({}) events {} memory {} flows {} threads {} bytes/event {:.1f} input {}\n",
               t.rank, stepscope::to_string(t.rank_source), t.events.size(), t.memory.size(),
               t.flows.size(), t.threads.size(), double(t.bytes()) / t.events.size(),
               t.stats.input_bytes);
  }
  for (const auto& n : set->notes) fmt::print("note: {}\n", n);
  return 0;
}
