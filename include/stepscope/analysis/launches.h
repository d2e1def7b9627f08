// Kernel-launch statistics (metrics.md §7 native) and launch-queue length (§8 native): how long
// the host spends in each launch call, how long the launched work waits before it starts, and
// how deep each stream's queue of submitted-but-not-started work runs.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class LaunchClass : std::uint8_t { kKernelLaunch, kGraphLaunch, kAsyncMemory, kSyncMemory };
inline constexpr std::size_t kLaunchClassCount = 4;
[[nodiscard]] std::string_view to_string(LaunchClass launch_class);
// The class of a runtime or driver call by name, or nullopt for calls that launch nothing.
[[nodiscard]] std::optional<LaunchClass> classify_launch(std::string_view call_name);

struct LaunchClassStats {
  std::int64_t count = 0;  // (call, activity) pairs
  Statistics cpu_duration_ns;
  Statistics gpu_duration_ns;
  Statistics launch_delay_ns;  // activity start - call end; negative when it starts earlier
  std::int64_t negative_delay_count = 0;
  std::int64_t cpu_duration_over_50us = 0;   // HTA's runtime cutoff
  std::int64_t launch_delay_over_100us = 0;  // HTA's launch-delay cutoff
  std::int64_t short_kernel_count = 0;       // cpu <= 50 µs and gpu < cpu (HTA's rule)
  std::int64_t cpu_duration_total_ns = 0;
  std::int64_t gpu_duration_total_ns = 0;
};

struct StreamQueue {
  std::int32_t device = -1;
  std::int64_t stream = -1;
  std::int64_t samples = 0;  // change points inside the window
  std::int64_t max_depth = 0;
  double time_weighted_mean = 0;
  std::int64_t time_at_limit_ns = 0;  // depth >= 1024: launches block
};

struct LaunchResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::array<LaunchClassStats, kLaunchClassCount> classes{};
  std::vector<StreamQueue> queues;
  static constexpr std::int64_t kQueueLimit = 1024;  // CUDA's per-stream launch queue
};

// Native: pairs whose call starts in the window W; queue depth integrated over W.
LaunchResult compute_launches(const Trace& trace, const StepsResult& steps,
                              const AnalysisOptions& options);

}  // namespace stepscope
