// Kernel-launch statistics (docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7 native): per
// launch class, how long the host spends in each launch call and how long the launched work then
// waits before it starts on the device. Read together with the queue length (queue_length.h): long
// delays behind a deep queue mean the GPU is the bottleneck; short device work with cpu_duration >=
// gpu_duration and an empty queue means the host cannot launch fast enough.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "stepscope/analysis/launch_class.h"
#include "stepscope/analysis/options.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/trace.h"

namespace stepscope {

// HTA's cutoffs (hta/trace_analysis.py@f4d0062c get_cuda_kernel_launch_stats defaults).
inline constexpr std::int64_t kLaunchRuntimeCutoffNs = 50'000;
inline constexpr std::int64_t kLaunchDelayCutoffNs = 100'000;

struct LaunchClassStats {
  std::int64_t count = 0;      // (call, device activity) pairs
  Statistics cpu_duration_ns;  // the call's duration
  Statistics gpu_duration_ns;  // the activity's duration
  // Activity start - call end, signed: HTA clips at 0, which hides activities that start
  // before their (short) launch call returns.
  Statistics launch_delay_ns;
  std::int64_t signed_delay_negative_count = 0;
  std::int64_t cpu_duration_over_50us_count = 0;   // cpu_duration > 50 µs
  std::int64_t launch_delay_over_100us_count = 0;  // launch_delay > 100 µs
  std::int64_t short_kernel_count = 0;             // cpu <= 50 µs and gpu < cpu (HTA's rule)
  // Sums, for checks against peers only: docs/metrics/07-hta-cuda-kernel-launch-statistics.md §7
  // reports them in compat-hta alone, since a sum of delays in a deep queue is no time anyone
  // waited. Renderers leave them out.
  std::int64_t cpu_duration_total_ns = 0;
  std::int64_t gpu_duration_total_ns = 0;
  std::int64_t launch_delay_total_ns = 0;  // signed
};

struct LaunchesResult {
  bool applicable = false;
  std::string not_applicable_reason;
  std::array<LaunchClassStats, kLaunchClassCount> classes{};
  std::int64_t outside_window_pairs = 0;  // linked pairs whose call starts outside W
  [[nodiscard]] const LaunchClassStats& of(LaunchClass launch_class) const& {
    return classes[static_cast<std::size_t>(launch_class)];
  }
  const LaunchClassStats& of(LaunchClass launch_class) && = delete;  // would dangle
};

// Native: every runtime or driver call of a launch class linked by correlation to a device
// activity (kernel, memcpy, memset, accelerator kernel), one pair per activity, counted when the
// call starts in the window W.
LaunchesResult compute_launches(const Trace& trace, const StepsResult& steps,
                                const AnalysisOptions& options);

}  // namespace stepscope
