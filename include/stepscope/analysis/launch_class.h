// The class of a host call that launches device work
// (docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7 native): kernel launches, graph
// launches, asynchronous and synchronous memory operations, for the CUDA runtime, the CUDA driver
// (Triton's `cuLaunchKernel`), HIP and MTIA. The launch statistics and the launch-queue length
// share this one list, unlike HTA, whose two analyses use two different lists.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stepscope {

enum class LaunchClass : std::uint8_t { kKernelLaunch, kGraphLaunch, kAsyncMemory, kSyncMemory };
inline constexpr std::size_t kLaunchClassCount = 4;

// "kernel_launch", "graph_launch", "async_memory", "sync_memory".
[[nodiscard]] std::string_view to_string(LaunchClass launch_class);

// The class of a runtime or driver call by name, or nullopt for calls that launch nothing
// (stream syncs, event records, mallocs). A CUPTI version suffix (`cudaLaunchKernelExC_v11060`)
// is ignored.
[[nodiscard]] std::optional<LaunchClass> classify_launch(std::string_view call_name);

}  // namespace stepscope
