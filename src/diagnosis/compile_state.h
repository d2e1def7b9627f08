// What the trace shows of torch.compile and CUDA graphs, so that launch advice does not
// recommend what the run already does.
#pragma once

#include "stepscope/trace.h"

namespace stepscope {

struct CompileState {
  // Inductor's Triton kernels (`triton_poi_…`, `triton_red_…`, `triton_per_…`, `triton_tem_…`)
  // or compiled regions (`CompiledFunction`, `Torch-Compiled Region…`, `TorchDynamo Cache
  // Lookup`).
  bool compiled = false;
  bool cuda_graphs = false;  // `cudaGraphLaunch` / `hipGraphLaunch` calls
};

[[nodiscard]] CompileState compile_state(const Trace& trace);

}  // namespace stepscope
