// Which kernel names run on tensor cores (docs/metrics/10-tb-plugin-gpu-summary-metrics.md §10.4):
// tb_plugin's list
// (`profiler/tensor_core.py@041e7ce9` `TC_Allowlist`), and stepscope's heuristic extension for
// kernels newer than that list (Hopper gmma/nvjet, CUTLASS tensorop, flash attention).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "stepscope/trace.h"

namespace stepscope {

struct TensorCoreMatch {
  std::string_view pattern;
  bool extended = false;
};

// tb_plugin's rule: the name contains one of its substrings (case-sensitive).
[[nodiscard]] std::optional<TensorCoreMatch> match_tb_tensor_core(std::string_view kernel_name);
// tb_plugin's list first, then the extension (case-insensitive); kernels whose names say they
// run on CUDA cores (`ffma`, `simt`) never match.
[[nodiscard]] std::optional<TensorCoreMatch> match_tensor_core(std::string_view kernel_name);

// Either rule, decided once per distinct kernel name of a trace.
class TensorCoreMatcher {
 public:
  TensorCoreMatcher(const Trace& trace, bool tb_list_only);
  [[nodiscard]] std::optional<TensorCoreMatch> operator()(EventIndex kernel);

 private:
  const Trace& trace_;
  bool tb_list_only_;
  std::vector<std::optional<TensorCoreMatch>> by_name_;
  std::vector<bool> known_;
};

}  // namespace stepscope
