#include "stepscope/analysis/launch_class.h"

#include <algorithm>
#include <array>

namespace stepscope {

namespace {

// Drops a trailing `_v<digits>`: CUPTI names some API versions that way.
std::string_view without_version_suffix(std::string_view name) {
  const std::size_t at = name.rfind("_v");
  if (at == std::string_view::npos || at + 2 == name.size()) return name;
  const std::string_view digits = name.substr(at + 2);
  const bool all_digits =
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  return all_digits ? name.substr(0, at) : name;
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool is_kernel_launch(std::string_view name) {
  static constexpr std::array<std::string_view, 14> kNames = {
      "cudaLaunchKernel",
      "cudaLaunchKernelExC",
      "cudaLaunchCooperativeKernel",
      "cudaLaunchCooperativeKernelMultiDevice",
      "cuLaunchKernel",
      "cuLaunchKernelEx",
      "cuLaunchCooperativeKernel",
      "hipLaunchKernel",
      "hipLaunchKernelExC",
      "hipModuleLaunchKernel",
      "hipExtModuleLaunchKernel",
      "hipExtLaunchKernel",
      "hipLaunchCooperativeKernel",
      "hipModuleLaunchCooperativeKernel"};
  // MTIA: `runFunction - job_prep_and_submit_for_execution` and its variants.
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end() ||
         name.starts_with("runFunction");
}

bool is_api_name(std::string_view name) {
  return name.starts_with("cuda") || name.starts_with("cu") || name.starts_with("hip");
}

}  // namespace

std::string_view to_string(LaunchClass launch_class) {
  static constexpr std::array<std::string_view, kLaunchClassCount> kNames = {
      "kernel_launch", "graph_launch", "async_memory", "sync_memory"};
  return kNames[static_cast<std::size_t>(launch_class)];
}

std::optional<LaunchClass> classify_launch(std::string_view call_name) {
  const std::string_view name = without_version_suffix(call_name);
  if (is_kernel_launch(name)) return LaunchClass::kKernelLaunch;
  if (name == "cudaGraphLaunch" || name == "cuGraphLaunch" || name == "hipGraphLaunch") {
    return LaunchClass::kGraphLaunch;
  }
  // cudaMemcpy, cudaMemcpy2DAsync, cuMemcpyHtoDAsync, hipMemsetAsync, hipMemcpyWithStream, ...
  // Only the `Async` calls return before the copy is done; hipMemcpyWithStream blocks.
  if (!is_api_name(name) || !(contains(name, "Memcpy") || contains(name, "Memset"))) {
    return std::nullopt;
  }
  return contains(name, "Async") ? LaunchClass::kAsyncMemory : LaunchClass::kSyncMemory;
}

}  // namespace stepscope
