// `stepscope merge SUMMARY... [--json F] [--html F]`: the job report from rank summaries.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace stepscope::cli {

struct MergeArguments {
  std::vector<std::string> summaries;
  std::string json_output;
  std::string html_output;
  std::optional<std::int64_t> run;
  int top = 10;
  bool quiet = false;
};

void add_merge_command(CLI::App& app, MergeArguments& arguments);
int run_merge(const MergeArguments& arguments);

// Reads summary files; prints the error and returns false on failure.
bool read_summaries(const std::vector<std::string>& paths, std::vector<std::string>& texts);

}  // namespace stepscope::cli
