// Iterations of a trace that has no ProfilerStep#N: inference servers and scripts that wrap a
// few calls in `with profile():` without a schedule
// (docs/metrics/01-profiler-steps-and-step-boundaries.md §1.5).
#pragma once

#include <string>
#include <vector>

#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

struct InferredIterations {
  std::vector<Step> steps;  // host spans only, numbered 0, 1, ... in time order
  // The repeated region the iterations are (`execute_model`, `nn.Module: Model_0`, a user's
  // record_function); empty when the whole trace is one window.
  std::string region;
};

// The outermost region that repeats on one thread and covers most of the host's time, else one
// step over the whole trace (host work and GPU activity, first to last); empty when the trace
// holds neither.
InferredIterations infer_iterations(const Trace& trace);

}  // namespace stepscope
