// The live monitor: samples a running process tree (through /proc) and the GPUs (through NVML,
// loaded at run time) on a background thread, then summarises the samples into distributions
// and the verdict of phase two of the method: which kind of bottleneck.
//
//   auto monitor = live::Monitor::start(pid, {});   // sampling begins
//   ...                                              // the job runs
//   monitor->stop();
//   live::Timeline timeline = monitor->timeline();
//   live::MonitorSummary summary = live::summarize(timeline);
//   fmt::print("{}", live::render_summary_text(summary));
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stepscope/diagnosis/finding.h"
#include "stepscope/error.h"
#include "stepscope/live/sample.h"

namespace stepscope::live {

inline constexpr std::int64_t kDefaultIntervalNs = 100'000'000;  // 100 ms

struct MonitorOptions {
  std::int64_t interval_ns = kDefaultIntervalNs;
  bool sample_gpus = true;
  // The NVML library to dlopen; tests point it at a missing file to exercise the no-GPU path.
  std::string nvml_library = "libnvidia-ml.so.1";
  // Past this many kept samples, every other one is dropped and the stride doubles.
  std::size_t max_samples = 16384;
};

// The latest figures, for a one-line status while the job runs.
struct LiveStatus {
  bool has_sample = false;
  double main_cpu_cores = 0;
  double workers_cpu_cores = 0;
  std::int32_t workers = 0;
  std::uint64_t tree_rss_bytes = 0;
  double machine_cpu_share = 0;
  std::optional<double> gpu_utilization_share;  // mean over the GPUs
  std::optional<double> gpu_memory_used_share;
};

class Monitor {
 public:
  // Starts sampling the tree rooted at `root_pid` (which may be the calling process). Fails only
  // when /proc cannot be read or the process does not exist; a missing GPU is not an error.
  static Result<std::unique_ptr<Monitor>> start(std::int32_t root_pid, MonitorOptions options);
  ~Monitor();
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // Takes a last sample and stops the thread; safe to call twice.
  void stop();
  // A copy of what has been recorded so far (complete after stop()).
  [[nodiscard]] Timeline timeline() const;
  [[nodiscard]] LiveStatus status() const;
  // Empty when NVML answered; otherwise why there are no GPU figures (said once by front ends).
  [[nodiscard]] std::string gpu_status() const;

  class Impl;

 private:
  explicit Monitor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// p5 / p50 / p95 of one figure over the samples (nearest-rank percentiles).
struct Distribution {
  std::size_t count = 0;
  double p5 = 0;
  double p50 = 0;
  double p95 = 0;
  double mean = 0;
  double max = 0;
};
[[nodiscard]] Distribution distribution_of(std::vector<double> values);

struct MonitorVerdict {
  Bottleneck bottleneck = Bottleneck::kUndetermined;
  std::string id;                    // stable: "host-bound", "input-bound", "device-busy", ...
  std::string headline;              // one sentence
  std::vector<std::string> reasons;  // the figures the verdict rests on, in words
  std::string next_step;             // what to look at next, and what a trace would show
};

struct MonitorSummary {
  // With a GPU, the figures start at the first sample where a GPU the run uses is busy, so that
  // start-up (interpreter, `import torch`, data set up) does not dilute the steady state; the
  // time left out is `startup_s`. Without GPU activity the whole run counts (`startup_s` 0).
  double startup_s = 0;
  std::int64_t samples = 0;  // summarised (after start-up)
  double duration_s = 0;     // the whole run
  double mean_interval_ms = 0;
  std::int32_t cpu_count = 0;
  // CPU side. Workers are the root's descendants; per sample, their sum and their mean.
  Distribution main_cpu_cores;
  Distribution workers_cpu_cores;
  Distribution worker_mean_cpu_cores;
  std::int32_t max_workers = 0;
  Distribution machine_cpu_share;
  Distribution tree_rss_bytes;
  Distribution machine_memory_used_bytes;
  std::uint64_t machine_memory_total_bytes = 0;
  // GPU side, per sample the mean over the GPUs the tree uses (all GPUs when none is seen used).
  bool gpu_available = false;
  std::string gpu_status;
  std::vector<std::uint32_t> gpus_used;
  bool gpus_used_seen = false;  // false: no GPU listed a monitored process, all GPUs averaged
  Distribution gpu_utilization_share;
  Distribution gpu_memory_utilization_share;
  Distribution gpu_memory_used_share;
  Distribution gpu_power_w;
  Distribution gpu_sm_clock_mhz;
  Distribution gpu_temperature_c;
  // The monitor's own cost, as a share of one core over the whole run.
  double monitor_cpu_share_of_core = 0;
  std::optional<std::int32_t> exit_status;
  MonitorVerdict verdict;
};

// Distributions and verdict: a pure function of the timeline.
[[nodiscard]] MonitorSummary summarize(const Timeline& timeline);
// The verdict from the summary's figures (its own `verdict` is ignored).
[[nodiscard]] MonitorVerdict live_verdict(const MonitorSummary& figures);

// Renderers: the summary for a terminal, the timeline (with the summary) as JSON, the samples
// as CSV (one row per sample; GPU figures per GPU, process figures as main + workers).
[[nodiscard]] std::string render_summary_text(const MonitorSummary& summary);
[[nodiscard]] std::string render_timeline_json(const Timeline& timeline,
                                               const MonitorSummary& summary);
[[nodiscard]] std::string render_timeline_csv(const Timeline& timeline);
[[nodiscard]] std::string render_status_line(const LiveStatus& status);
// Version of the document render_timeline_json writes; bumped on incompatible change.
inline constexpr int kTimelineSchemaVersion = 1;

}  // namespace stepscope::live
