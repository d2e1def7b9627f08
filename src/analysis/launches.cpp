#include "stepscope/analysis/launches.h"

#include <vector>

#include "analysis/launch_class_cache.h"
#include "trace/saturating.h"

namespace stepscope {

namespace {

struct ClassSamples {
  std::vector<double> cpu;
  std::vector<double> gpu;
  std::vector<double> delay;
};

void add_pair(LaunchClassStats& stats, ClassSamples& samples, std::int64_t cpu, std::int64_t gpu,
              std::int64_t delay) {
  ++stats.count;
  // Saturating: a corrupt trace can carry durations near the int64 limit.
  stats.cpu_duration_total_ns = saturating_add(stats.cpu_duration_total_ns, cpu);
  stats.gpu_duration_total_ns = saturating_add(stats.gpu_duration_total_ns, gpu);
  stats.launch_delay_total_ns = saturating_add(stats.launch_delay_total_ns, delay);
  stats.signed_delay_negative_count += delay < 0 ? 1 : 0;
  stats.cpu_duration_over_50us_count += cpu > kLaunchRuntimeCutoffNs ? 1 : 0;
  stats.launch_delay_over_100us_count += delay > kLaunchDelayCutoffNs ? 1 : 0;
  stats.short_kernel_count += (cpu <= kLaunchRuntimeCutoffNs && gpu < cpu) ? 1 : 0;
  samples.cpu.push_back(static_cast<double>(cpu));
  samples.gpu.push_back(static_cast<double>(gpu));
  samples.delay.push_back(static_cast<double>(delay));
}

}  // namespace

LaunchesResult compute_launches(const Trace& trace, const StepsResult& steps,
                                const AnalysisOptions& /*options*/) {
  LaunchesResult result;
  if (!steps.window) {
    result.not_applicable_reason = "no GPU activity";
    return result;
  }
  const Interval window = *steps.window;
  const EventTable& e = trace.events;
  LaunchClassCache classes(trace);
  std::array<ClassSamples, kLaunchClassCount> samples;
  for (const EventIndex i : e.device_activities) {
    if (e.launcher[i] == kNoEvent) continue;
    const EventIndex call = e.launcher[i];
    const std::optional<LaunchClass> launch_class = classes.of(call);
    if (!launch_class) continue;
    if (e.start_ns[call] < window.start || e.start_ns[call] >= window.end) {
      ++result.outside_window_pairs;
      continue;
    }
    const auto k = static_cast<std::size_t>(*launch_class);
    add_pair(result.classes[k], samples[k], e.dur_ns[call], e.dur_ns[i],
             e.start_ns[i] - e.end_ns(call));
  }
  bool any = false;
  for (std::size_t k = 0; k < kLaunchClassCount; ++k) {
    result.classes[k].cpu_duration_ns = describe(std::move(samples[k].cpu));
    result.classes[k].gpu_duration_ns = describe(std::move(samples[k].gpu));
    result.classes[k].launch_delay_ns = describe(std::move(samples[k].delay));
    any = any || result.classes[k].count > 0;
  }
  result.applicable = any;
  if (!any) result.not_applicable_reason = "no launch call linked to device activity in the window";
  return result;
}

}  // namespace stepscope
