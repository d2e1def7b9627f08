// Time per nn.Module, as TensorBoard's module view showed it: for each module in the hierarchy
// (one row per path, all its calls together), host time total and self (less its child
// modules), and device time total and self (the device activity of the ops inside it, through
// the op ↔ kernel links). Built from the `nn.Module: Name_N` frames or annotations that
// code_location.h reads; these cover the forward pass (autograd runs backward outside them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/code_location.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

struct ModuleRow {
  std::string path;          // "Net_0/Block_1/Linear_0"
  std::string name;          // "Linear_0": the class and PyTorch's per-class instance number
  int depth = 0;             // 0 for the outermost modules
  std::int32_t parent = -1;  // row index of the enclosing module, -1 at the top
  std::int64_t calls = 0;
  std::int64_t host_total_ns = 0;    // sum of the module's spans
  std::int64_t host_self_ns = 0;     // less the spans of its direct child modules
  std::int64_t device_total_ns = 0;  // sums of activity durations, not unions
  std::int64_t device_self_ns = 0;   // activity of ops in no child module
};

struct ModuleViewResult {
  bool applicable = false;
  std::string not_applicable_reason;  // says how to record module hierarchy when absent
  std::string source;  // "python_function frames (with_stack)" or "nn.Module annotations"
  // Module calls starting here are counted: the kept steps' host span, else the whole trace.
  std::optional<Interval> scope;
  std::int64_t kept_steps = 0;  // divide totals by this for per-step figures (0: no steps)
  std::vector<ModuleRow> rows;  // depth first; siblings by host total, largest first
  std::int64_t calls_outside_scope = 0;
};

ModuleViewResult compute_module_view(const Trace& trace, const StepsResult& steps,
                                     const CodeContext& context);

}  // namespace stepscope
