// `stepscope summarize TRACE -o RANK.summary.json`: one rank's summary for a later `merge`.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace stepscope::cli {

struct SummarizeArguments {
  std::string path;
  std::string output = "-";
  std::string mode = "native";
  std::string steps;
};

void add_summarize_command(CLI::App& app, SummarizeArguments& arguments);
int run_summarize(const SummarizeArguments& arguments);

}  // namespace stepscope::cli
