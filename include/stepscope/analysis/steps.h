// Profiler steps, the step window and step-time statistics
// (docs/metrics/01-profiler-steps-and-step-boundaries.md §1, §2, §0.7).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/analysis/options.h"
#include "stepscope/intervals.h"
#include "stepscope/trace.h"

namespace stepscope {

enum class StepStatus : std::uint8_t {
  kKept,
  kNoDeviceActivityAfterLastActiveStep,
  kIncompleteLastStep,  // device activities < 0.8 × previous step's
  kOutsideRequestedRange,
};
[[nodiscard]] std::string_view to_string(StepStatus status);

struct Step {
  std::int64_t number = 0;
  EventIndex event = kNoEvent;  // the ProfilerStep#N host event
  // The host thread that runs the step (its ProfilerStep# or its repeated region); none: a step
  // over the whole trace, run by every thread.
  std::optional<std::uint32_t> thread;
  std::int64_t host_start_ns = 0;
  std::int64_t host_end_ns = 0;
  std::int64_t start_ns = 0;  // device-rebased (= host span on CPU-only traces)
  std::int64_t end_ns = 0;
  std::int64_t device_activities = 0;  // matched through the step's launch calls
  StepStatus status = StepStatus::kKept;
  bool outlier = false;  // docs/metrics/02-step-time-statistics.md §2: > median of the others + 3
                         // × 1.4826 × their MAD
  [[nodiscard]] bool kept() const { return status == StepStatus::kKept; }
  [[nodiscard]] std::int64_t duration_ns() const { return end_ns - start_ns; }
  [[nodiscard]] std::int64_t host_duration_ns() const { return host_end_ns - host_start_ns; }
};

struct StepsResult {
  std::vector<Step> steps;         // sorted by host start
  bool rebased = false;            // device-rebased (a GPU trace) or host spans (CPU-only)
  std::vector<std::string> notes;  // duplicated numbers, nested steps, several threads
  // The analysis window W (docs/metrics/00-conventions-for-every-figure.md §0.7): kept steps, else
  // the GPU activity span. Without profiler steps (native), the steps are inferred: repetitions
  // of one region, else one step over the whole trace.
  std::optional<Interval> window;
  enum class WindowSource : std::uint8_t {
    kSteps,
    kRepeatedRegion,  // steps are the repetitions of `region`
    kWholeTrace,      // one step from the first host op or GPU activity to the last
    kGpuActivitySpan,
    kNone
  } window_source = WindowSource::kNone;
  std::string region;  // the repeated region's name, for kRepeatedRegion
  // Pointers into `steps`: never called on a temporary (that was a use-after-free once).
  [[nodiscard]] std::vector<const Step*> kept() const&;
  std::vector<const Step*> kept() && = delete;
  std::vector<const Step*> kept() const&& = delete;
};

// Native: tb_plugin's device-rebased, tail-trimmed steps with stepscope's two fixes
// (gpu_user_annotation copies ignored, cuda_driver launches counted). compat-tb: tb_plugin
// verbatim. compat-hta: HTA's step list (see hta/ for its scope).
StepsResult find_steps(const Trace& trace, const AnalysisOptions& options);

struct Statistics {
  std::size_t count = 0;
  double mean = 0;
  double std = 0;  // sample standard deviation (n - 1); 0 when n = 1
  double min = 0;
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
  double cv = 0;             // std / mean
  bool few_samples = false;  // n < 20: p95 / p99 interpolate towards the maximum
};

// Linear-interpolation percentiles (numpy's default) over any sample.
Statistics describe(std::vector<double> values);

struct StepTimeStats {
  Statistics duration_ns;       // kept steps, rebased
  Statistics host_duration_ns;  // kept steps, host spans
};
StepTimeStats step_time_statistics(const StepsResult& steps);

}  // namespace stepscope
