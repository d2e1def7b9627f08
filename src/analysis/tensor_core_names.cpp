#include "analysis/tensor_core_names.h"

#include "trace/ascii.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace stepscope {

namespace {

constexpr std::array<std::string_view, 18> kTbPatterns = {
    "h884",
    "s884",
    "h1688",
    "s1688",
    "hmma",
    "i8816",
    "16816",
    "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel",
    "conv1x1",
    "conv2d_c1_k1",
    "direct_group",
    "xmma_implicit_gemm",
    "xmma_sparse_conv",
    "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm",
    "xmma_sparse_gemm",
    "c1688",
};

// Lower case; "wgmma" before "gmma" so that the more specific rule is the one reported.
constexpr std::array<std::string_view, 7> kExtendedPatterns = {"tensorop", "wgmma", "gmma", "nvjet",
                                                               "xmma",     "fmha",  "flash"};

}  // namespace

std::optional<TensorCoreMatch> match_tb_tensor_core(std::string_view kernel_name) {
  for (std::string_view pattern : kTbPatterns) {
    if (kernel_name.find(pattern) != std::string_view::npos) return TensorCoreMatch{pattern, false};
  }
  return std::nullopt;
}

std::optional<TensorCoreMatch> match_tensor_core(std::string_view kernel_name) {
  // cuBLAS names its CUDA-core float32 kernels `…xmma_gemm_f32f32…_ffma…` and CUTLASS `…simt…`:
  // they match tb_plugin's `xmma_gemm` but run no tensor-core instruction (seen on an H100).
  if (contains_ignoring_case(kernel_name, "ffma") || contains_ignoring_case(kernel_name, "simt")) {
    return std::nullopt;
  }
  if (std::optional<TensorCoreMatch> tb = match_tb_tensor_core(kernel_name)) return tb;
  for (std::string_view pattern : kExtendedPatterns) {
    if (contains_ignoring_case(kernel_name, pattern)) return TensorCoreMatch{pattern, true};
  }
  return std::nullopt;
}

TensorCoreMatcher::TensorCoreMatcher(const Trace& trace, bool tb_list_only)
    : trace_(trace),
      tb_list_only_(tb_list_only),
      by_name_(trace.strings.size()),
      known_(trace.strings.size(), false) {}

std::optional<TensorCoreMatch> TensorCoreMatcher::operator()(EventIndex kernel) {
  const StringId name = trace_.events.name[kernel];
  if (!known_[name]) {
    const std::string_view text = trace_.strings.view(name);
    by_name_[name] = tb_list_only_ ? match_tb_tensor_core(text) : match_tensor_core(text);
    known_[name] = true;
  }
  return by_name_[name];
}

}  // namespace stepscope
