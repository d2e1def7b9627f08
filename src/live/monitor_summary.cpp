// Distributions of the sampled figures and the verdict of phase two of the method ("is the GPU
// starving or busy, and is the CPU pegged?"): pure functions of the samples, so that they are
// tested with synthetic timelines. Thresholds are named below and listed in docs/monitor.md.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "stepscope/live/monitor.h"

namespace stepscope::live {

namespace {

constexpr double kGpuStarvingShare = 0.70;  // below: the GPU waits for work a good part of the time
constexpr double kGpuBusyShare = 0.90;      // at or above: the time is in kernels
constexpr double kPinnedCores = 0.85;       // a process at this share of one core is CPU-bound
constexpr double kWorkerSaturatedCores = 0.8;
constexpr double kMachineSaturatedShare = 0.9;
constexpr double kGpuMemoryFullShare = 0.95;

// The GPUs the tree uses: those that list one of its processes. NVML reports host pids, so in a
// container with its own pid namespace none matches and every GPU counts.
std::vector<std::uint32_t> gpus_used_by_tree(const Timeline& timeline) {
  std::set<std::uint32_t> used;
  for (const Sample& s : timeline.samples) {
    for (const GpuSample& g : s.gpus) {
      for (const GpuProcess& p : g.processes) {
        if (p.in_tree) used.insert(g.index);
      }
    }
  }
  return {used.begin(), used.end()};
}

// Per sample, the mean of `figure` over the chosen GPUs that report it.
template <typename Figure>
Distribution over_gpus(const Timeline& timeline, const std::set<std::uint32_t>& chosen,
                       Figure figure) {
  std::vector<double> values;
  for (const Sample& s : timeline.samples) {
    double sum = 0;
    int count = 0;
    for (const GpuSample& g : s.gpus) {
      if (!chosen.contains(g.index)) continue;
      if (const std::optional<double> v = figure(g)) {
        sum += *v;
        ++count;
      }
    }
    if (count > 0) values.push_back(sum / count);
  }
  return distribution_of(std::move(values));
}

void summarize_processes(const Timeline& timeline, MonitorSummary& out) {
  std::vector<double> main_cpu, workers_cpu, worker_mean, machine_cpu, rss, memory;
  for (const Sample& s : timeline.samples) {
    double workers = 0;
    std::int32_t count = 0;
    std::uint64_t tree_rss = 0;
    for (const ProcessSample& p : s.processes) {
      tree_rss += p.rss_bytes;
      if (p.is_root) {
        main_cpu.push_back(p.cpu_cores);
      } else {
        workers += p.cpu_cores;
        ++count;
      }
    }
    // Both worker rows over the samples that had workers, so that they read alike.
    if (count > 0) {
      workers_cpu.push_back(workers);
      worker_mean.push_back(workers / count);
    }
    out.max_workers = std::max(out.max_workers, count);
    machine_cpu.push_back(s.machine_cpu_share);
    rss.push_back(static_cast<double>(tree_rss));
    memory.push_back(static_cast<double>(s.machine_memory_used_bytes));
    out.machine_memory_total_bytes = s.machine_memory_total_bytes;
  }
  out.main_cpu_cores = distribution_of(std::move(main_cpu));
  out.workers_cpu_cores = distribution_of(std::move(workers_cpu));
  out.worker_mean_cpu_cores = distribution_of(std::move(worker_mean));
  out.machine_cpu_share = distribution_of(std::move(machine_cpu));
  out.tree_rss_bytes = distribution_of(std::move(rss));
  out.machine_memory_used_bytes = distribution_of(std::move(memory));
}

void summarize_gpus(const Timeline& timeline, MonitorSummary& out) {
  out.gpu_status = timeline.gpu_status;
  out.gpu_available = timeline.gpu_status.empty() && !timeline.gpus.empty();
  if (!out.gpu_available) return;
  out.gpus_used = gpus_used_by_tree(timeline);
  out.gpus_used_seen = !out.gpus_used.empty();
  if (!out.gpus_used_seen) {
    for (const GpuInfo& g : timeline.gpus) out.gpus_used.push_back(g.index);
  }
  const std::set<std::uint32_t> chosen(out.gpus_used.begin(), out.gpus_used.end());
  auto as_double = [](const auto& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  out.gpu_utilization_share =
      over_gpus(timeline, chosen, [](const GpuSample& g) { return g.utilization_share; });
  out.gpu_memory_utilization_share =
      over_gpus(timeline, chosen, [](const GpuSample& g) { return g.memory_utilization_share; });
  out.gpu_memory_used_share =
      over_gpus(timeline, chosen, [](const GpuSample& g) -> std::optional<double> {
        if (!g.memory_used_bytes || !g.memory_total_bytes || *g.memory_total_bytes == 0) {
          return std::nullopt;
        }
        return static_cast<double>(*g.memory_used_bytes) /
               static_cast<double>(*g.memory_total_bytes);
      });
  out.gpu_power_w = over_gpus(timeline, chosen, [](const GpuSample& g) { return g.power_w; });
  out.gpu_sm_clock_mhz =
      over_gpus(timeline, chosen, [&](const GpuSample& g) { return as_double(g.sm_clock_mhz); });
  out.gpu_temperature_c =
      over_gpus(timeline, chosen, [&](const GpuSample& g) { return as_double(g.temperature_c); });
}

MonitorVerdict make_verdict(Bottleneck bottleneck, std::string id, std::string headline,
                            std::string next_step) {
  MonitorVerdict v;
  v.bottleneck = bottleneck;
  v.id = std::move(id);
  v.headline = std::move(headline);
  v.next_step = std::move(next_step);
  return v;
}

MonitorVerdict input_bound(const MonitorSummary& f) {
  return make_verdict(
      Bottleneck::kInputPipeline, "input-bound",
      fmt::format("Input-bound: the {} DataLoader worker(s) are saturated", f.max_workers),
      "Feed the GPU faster: more workers (num_workers), cheaper or GPU-side transforms and "
      "decoding, pin_memory=True, persistent_workers=True. A trace shows the step time spent "
      "in the DataLoader's next().");
}

MonitorVerdict host_bound(bool machine) {
  if (machine) {
    return make_verdict(Bottleneck::kHostOverhead, "host-bound",
                        "Host-bound: the machine's CPUs are saturated",
                        "Find what else runs on the machine, or give the job fewer threads "
                        "(OMP_NUM_THREADS, num_workers) so that the main process is not "
                        "starved of CPU time.");
  }
  return make_verdict(Bottleneck::kHostOverhead, "host-bound",
                      "Host-bound: the main process is pinned at one core",
                      "The Python loop cannot issue work fast enough: CUDA graphs or "
                      "torch.compile, a larger batch, fewer small ops and no .item() in the "
                      "loop. A trace shows short kernels separated by gaps, and a launch "
                      "queue that is nearly empty.");
}

constexpr const char* kKernelsNext =
    "Look at the kernels next. High utilisation is not a green light: NVML counts the time a "
    "kernel was running, however few SMs it kept busy. A trace shows which kernels take the "
    "time, whether they are memory-bound, whether tensor cores run (dtype, shapes), and the "
    "gaps that launch overhead leaves between them.";

MonitorVerdict gpu_verdict(const MonitorSummary& f, bool pinned, bool workers, bool machine) {
  const double util = f.gpu_utilization_share.p50;
  if (util >= kGpuBusyShare) {
    return make_verdict(Bottleneck::kGpuCompute, "device-busy",
                        "Device-busy: the GPU runs kernels nearly all the time", kKernelsNext);
  }
  if (workers) return input_bound(f);
  if (pinned || machine) return host_bound(!pinned);
  if (util >= kGpuStarvingShare) {
    return make_verdict(Bottleneck::kGpuCompute, "device-mostly-busy",
                        "Device mostly busy: the GPU runs kernels most of the time and no CPU "
                        "is saturated",
                        kKernelsNext);
  }
  return make_verdict(Bottleneck::kUndetermined, "waiting",
                      "Waiting: the GPU is starving, yet no CPU is busy",
                      "The job waits on something the CPU figures do not show: storage reads, "
                      "other ranks, or synchronisation. A trace tells them apart: time in the "
                      "DataLoader (input), in collectives (communication), or in "
                      "cudaStreamSynchronize and .item() (host-device sync).");
}

MonitorVerdict cpu_verdict(bool pinned, bool workers, bool machine, const MonitorSummary& f) {
  if (workers || pinned || machine) {
    MonitorVerdict v = workers ? input_bound(f) : host_bound(!pinned);
    v.next_step = "If the job drives a GPU, the GPU is likely starving. " + v.next_step;
    return v;
  }
  return make_verdict(Bottleneck::kUndetermined, "undetermined",
                      "Undetermined: without GPU figures, the CPU figures name no bottleneck",
                      "No CPU is saturated. Run where NVML is available, or take a trace.");
}

std::string percent(double share) { return fmt::format("{:.0f}%", share * 100); }

void add_reasons(const MonitorSummary& f, MonitorVerdict& v) {
  if (f.gpu_available) {
    v.reasons.push_back(fmt::format(
        "GPU utilisation p50 {} (p5 {}, p95 {}) over GPU {}; starving below {}, busy from {}",
        percent(f.gpu_utilization_share.p50), percent(f.gpu_utilization_share.p5),
        percent(f.gpu_utilization_share.p95), fmt::format("{}", fmt::join(f.gpus_used, ", ")),
        percent(kGpuStarvingShare), percent(kGpuBusyShare)));
    if (!f.gpus_used_seen) {
      v.reasons.emplace_back(
          "no GPU listed a monitored process (another pid namespace?): all GPUs are averaged");
    }
  } else {
    v.reasons.push_back("no GPU figures: " + f.gpu_status);
  }
  v.reasons.push_back(
      fmt::format("main process CPU p50 {:.2f} cores (p95 {:.2f}); pinned from {:.2f}",
                  f.main_cpu_cores.p50, f.main_cpu_cores.p95, kPinnedCores));
  if (f.max_workers > 0) {
    v.reasons.push_back(fmt::format(
        "{} worker process(es): {:.2f} cores each at p50 ({:.2f} in all); saturated from {:.2f}",
        f.max_workers, f.worker_mean_cpu_cores.p50, f.workers_cpu_cores.p50,
        kWorkerSaturatedCores));
  }
  v.reasons.push_back(fmt::format("machine CPU p50 {} of {} CPUs; saturated from {}",
                                  percent(f.machine_cpu_share.p50), f.cpu_count,
                                  percent(kMachineSaturatedShare)));
  if (f.gpu_available && f.gpu_memory_used_share.p95 >= kGpuMemoryFullShare) {
    v.reasons.push_back(fmt::format(
        "GPU memory nearly full (p95 {} used): watch for allocator retries and fragmentation "
        "(memory capacity)",
        percent(f.gpu_memory_used_share.p95)));
  }
}

}  // namespace

Distribution distribution_of(std::vector<double> values) {
  Distribution d;
  d.count = values.size();
  if (values.empty()) return d;
  std::sort(values.begin(), values.end());
  auto rank = [&](double p) {  // nearest rank: the smallest value with p% at or below it
    const auto n = static_cast<double>(values.size());
    const auto index = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100 * n)) - 1);
    return values[std::min(index, values.size() - 1)];
  };
  d.p5 = rank(5);
  d.p50 = rank(50);
  d.p95 = rank(95);
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(d.count);
  d.max = values.back();
  return d;
}

MonitorVerdict live_verdict(const MonitorSummary& f) {
  if (f.main_cpu_cores.count == 0 && f.workers_cpu_cores.count == 0) {
    return make_verdict(Bottleneck::kUndetermined, "undetermined",
                        "Undetermined: no sample was taken (the job ended within one interval)",
                        "Run for longer, or with a shorter --interval.");
  }
  const bool pinned = f.main_cpu_cores.p50 >= kPinnedCores;
  const bool workers = f.max_workers > 0 && f.worker_mean_cpu_cores.p50 >= kWorkerSaturatedCores;
  const bool machine = f.machine_cpu_share.p50 >= kMachineSaturatedShare;
  MonitorVerdict v = f.gpu_available ? gpu_verdict(f, pinned, workers, machine)
                                     : cpu_verdict(pinned, workers, machine, f);
  add_reasons(f, v);
  return v;
}

namespace {

// Index of the first sample where a GPU the tree uses (any GPU when none lists the tree) is
// busy; 0 when no sample is.
std::size_t first_gpu_active_sample(const Timeline& timeline) {
  if (!timeline.gpu_status.empty() || timeline.gpus.empty()) return 0;
  const std::vector<std::uint32_t> used = gpus_used_by_tree(timeline);
  const std::set<std::uint32_t> chosen(used.begin(), used.end());
  for (std::size_t i = 0; i < timeline.samples.size(); ++i) {
    for (const GpuSample& g : timeline.samples[i].gpus) {
      const bool counted = chosen.empty() || chosen.contains(g.index);
      if (counted && g.utilization_share && *g.utilization_share > 0) return i;
    }
  }
  return 0;
}

}  // namespace

MonitorSummary summarize(const Timeline& whole) {
  MonitorSummary out;
  std::int64_t duration_ns = whole.duration_ns;
  if (duration_ns == 0 && !whole.samples.empty()) duration_ns = whole.samples.back().time_ns;
  out.duration_s = static_cast<double>(duration_ns) / 1e9;
  if (out.duration_s > 0)
    out.monitor_cpu_share_of_core = whole.monitor_cpu_seconds / out.duration_s;
  out.exit_status = whole.exit_status;
  out.cpu_count = whole.cpu_count;
  // The steady state: the samples from the first GPU activity on.
  const std::size_t first = first_gpu_active_sample(whole);
  Timeline steady = whole;
  if (first > 0) {
    out.startup_s = static_cast<double>(whole.samples[first - 1].time_ns) / 1e9;
    steady.samples.erase(steady.samples.begin(),
                         steady.samples.begin() + static_cast<std::ptrdiff_t>(first));
  }
  out.samples = static_cast<std::int64_t>(steady.samples.size());
  if (!steady.samples.empty()) {
    double sum = 0;
    for (const Sample& s : steady.samples) sum += static_cast<double>(s.interval_ns);
    out.mean_interval_ms = sum / static_cast<double>(steady.samples.size()) / 1e6;
  }
  summarize_processes(steady, out);
  summarize_gpus(steady, out);
  out.verdict = live_verdict(out);
  return out;
}

}  // namespace stepscope::live
