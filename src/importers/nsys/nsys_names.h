// How the names Nsight Systems writes become the names stepscope's analyses key on (they were
// written for PyTorch profiler traces): CUDA API calls without their version suffix, kernels
// demangled, copies named as the PyTorch profiler names them, and the op ranges that
// torch.autograd.profiler.emit_nvtx writes split into the op's name and its fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stepscope::nsys {

// `cudaLaunchKernel_v7000` -> `cudaLaunchKernel`: Nsight names each call by its versioned entry.
[[nodiscard]] std::string_view api_call_name(std::string_view name);

// A mangled C++ name (`_Z...`) demangled; any other name as it is.
[[nodiscard]] std::string demangled(std::string_view name);

// `Memcpy HtoD (Pinned -> Device)`, from CUPTI's copy kind and memory kinds.
[[nodiscard]] std::string memcpy_name(std::int64_t copy_kind, std::int64_t src_kind,
                                      std::int64_t dst_kind);
// `Memset (Device)`, from CUPTI's memory kind.
[[nodiscard]] std::string memset_name(std::int64_t memory_kind);

// A range that emit_nvtx wrote: `aten::mm, seq = 12, op_id = 40, sizes = [[8, 16], [16, 4]]`.
struct NvtxOpRange {
  std::string_view name;       // `aten::mm`
  std::int64_t sequence = -1;  // `seq = N`, -1 when absent
  std::string_view sizes;      // `[[8, 16], [16, 4]]`, empty when absent
  bool is_op = false;          // an operator (cpu_op), else a user scope (user_annotation)
};
// The fields of a range name, when it has emit_nvtx's form; a plain name has no fields.
[[nodiscard]] NvtxOpRange parse_nvtx_range(std::string_view text);

// Whether a range name marks a training step by a common convention (`train_step`, `step`,
// Lightning's `run_training_batch`, ...), compared without case.
[[nodiscard]] bool is_common_step_name(std::string_view name);

// Whether a range name marks waiting for input (`dataloader`, `data_loading`, `load_batch`...).
[[nodiscard]] bool is_data_loading_name(std::string_view name);

}  // namespace stepscope::nsys
