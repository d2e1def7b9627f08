// The options that choose what is analysed, as Python passes them to analyze() and diff(); the
// same meaning as the CLI's --mode, --rank, --steps, --top, --skip-bad, --threads,
// --group-by-shape and --no-hta-rounding.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "stepscope/analysis/options.h"
#include "stepscope/load.h"

namespace stepscope_python {

struct AnalysisArguments {
  std::string mode = "native";
  std::optional<std::int64_t> rank;
  std::optional<std::pair<std::int64_t, std::int64_t>> steps;  // (first, last), inclusive
  int top = 10;
  bool skip_bad = false;
  int threads = 2;  // 1, 2, or 0: pick by input size
  bool group_by_shape = false;
  bool hta_rounding = true;
};

// Fills the library's options; a value out of range raises BadOptionError.
void apply(const AnalysisArguments& arguments, stepscope::AnalysisOptions& analysis,
           stepscope::LoadOptions& load);

}  // namespace stepscope_python
