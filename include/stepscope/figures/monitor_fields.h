// The figures of the live monitor (live/monitor.h, live/sample.h): the document of
// `stepscope monitor -o FILE` after its schema header, described in docs/monitor.md. A figure
// the device or the kernel does not report is null.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "stepscope/figures/fields.h"
#include "stepscope/live/monitor.h"

namespace stepscope::figures {

template <>
struct Fields<live::Distribution> {
  static constexpr std::string_view kName = "MonitorDistribution";
  static std::span<const Field> list() {
    using T = live::Distribution;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::count>("count", Unit::kCount, "samples"),
        D::field<&T::p5>("p5", Unit::kNone, "5th percentile (nearest rank), in the figure's unit"),
        D::field<&T::p50>("p50", Unit::kNone, "median"),
        D::field<&T::p95>("p95", Unit::kNone, "95th percentile"),
        D::field<&T::mean>("mean", Unit::kNone, "mean"),
        D::field<&T::max>("max", Unit::kNone, "largest"),
    };
    return k;
  }
};

template <>
struct Fields<live::MonitorVerdict> {
  static constexpr std::string_view kName = "MonitorVerdict";
  static std::span<const Field> list() {
    using T = live::MonitorVerdict;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::bottleneck>("bottleneck", Unit::kNone, "what bounds the run"),
        D::field<&T::id>("id", Unit::kNone,
                         "stable: `host-bound`, `input-bound`, `device-busy`..."),
        D::field<&T::headline>("headline", Unit::kNone, "one sentence"),
        D::field<&T::reasons>("reasons", Unit::kNone, "the figures the verdict rests on, in words"),
        D::field<&T::next_step>("next_step", Unit::kNone,
                                "what to look at next, and what a trace would show"),
    };
    return k;
  }
};

// The summary's distributions, one object keyed by the figure's name.
struct MonitorDistributions {
  const live::MonitorSummary& summary;
};

template <auto Member>
const live::Distribution& distribution(const MonitorDistributions& d) {
  return d.summary.*Member;
}

template <>
struct Fields<MonitorDistributions> {
  static constexpr std::string_view kName = "MonitorDistributions";
  static std::span<const Field> list() {
    using S = live::MonitorSummary;
    using D = Describe<MonitorDistributions>;
    static const Field k[] = {
        D::field<&distribution<&S::main_cpu_cores>>("main_cpu_cores", Unit::kNone,
                                                    "the monitored process, in cores"),
        D::field<&distribution<&S::workers_cpu_cores>>("workers_cpu_cores", Unit::kNone,
                                                       "its descendants summed, in cores"),
        D::field<&distribution<&S::worker_mean_cpu_cores>>("worker_mean_cpu_cores", Unit::kNone,
                                                           "their mean, in cores"),
        D::field<&distribution<&S::machine_cpu_share>>("machine_cpu_share", Unit::kNone,
                                                       "busy share of all CPUs (0..1)"),
        D::field<&distribution<&S::tree_rss_bytes>>("tree_rss_bytes", Unit::kNone,
                                                    "RSS of the processes, in bytes"),
        D::field<&distribution<&S::machine_memory_used_bytes>>(
            "machine_memory_used_bytes", Unit::kNone, "MemTotal - MemAvailable, in bytes"),
        D::field<&distribution<&S::gpu_utilization_share>>(
            "gpu_utilization_share", Unit::kNone,
            "time a kernel ran (0..1), mean over the GPUs the run uses"),
        D::field<&distribution<&S::gpu_memory_utilization_share>>(
            "gpu_memory_utilization_share", Unit::kNone,
            "time device memory was read or written (0..1)"),
        D::field<&distribution<&S::gpu_memory_used_share>>("gpu_memory_used_share", Unit::kNone,
                                                           "device memory used (0..1)"),
        D::field<&distribution<&S::gpu_power_w>>("gpu_power_w", Unit::kNone, "power, in W"),
        D::field<&distribution<&S::gpu_sm_clock_mhz>>("gpu_sm_clock_mhz", Unit::kNone,
                                                      "SM clock, in MHz"),
        D::field<&distribution<&S::gpu_temperature_c>>("gpu_temperature_c", Unit::kNone,
                                                       "temperature, in °C"),
    };
    return k;
  }
};

inline MonitorDistributions monitor_distributions(const live::MonitorSummary& s) { return {s}; }

template <>
struct Fields<live::MonitorSummary> {
  static constexpr std::string_view kName = "MonitorSummary";
  static std::span<const Field> list() {
    using T = live::MonitorSummary;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::startup_s>("startup_us", Unit::kMicrosecondsFromSeconds,
                                "start-up left out: before the first sample where a GPU the run "
                                "uses is busy"),
        D::field<&T::samples>("samples", Unit::kCount, "samples summarised (after start-up)"),
        D::field<&T::duration_s>("duration_us", Unit::kMicrosecondsFromSeconds, "the whole run"),
        D::field<&T::mean_interval_ms>("mean_interval_us", Unit::kMicrosecondsFromMs,
                                       "between samples"),
        D::field<&T::max_workers>("max_workers", Unit::kCount, "most descendants at once"),
        D::field<&T::gpu_available>("gpu_available", Unit::kNone, "whether NVML answered"),
        D::field<&T::gpus_used>("gpus_used", Unit::kNone, "indices of the GPUs averaged"),
        D::field<&T::gpus_used_seen>("gpus_used_seen", Unit::kNone,
                                     "false: no GPU listed a monitored process, all averaged"),
        D::field<&T::monitor_cpu_share_of_core>("monitor_cpu_share_of_core", Unit::kShare,
                                                "the monitor's own cost, of one core"),
        D::field<&monitor_distributions>("distributions", Unit::kNone,
                                         "per sample figures: nearest-rank percentiles"),
        D::field<&T::verdict>("verdict", Unit::kNone, "what bounds the run"),
    };
    return k;
  }
};

template <>
struct Fields<live::ProcessSample> {
  static constexpr std::string_view kName = "MonitorProcess";
  static std::span<const Field> list() {
    using T = live::ProcessSample;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::pid>("pid", Unit::kNone, "process id"),
        D::field<&T::ppid>("ppid", Unit::kNone, "parent process id"),
        D::field<&T::name>("name", Unit::kNone, "/proc/PID/comm"),
        D::field<&T::is_root>("root", Unit::kNone, "the monitored process itself"),
        D::field<&T::cpu_cores>("cpu_cores", Unit::kNone,
                                "user + system CPU over the interval, in cores"),
        D::field<&T::rss_bytes>("rss_bytes", Unit::kBytes, "resident set size"),
        D::field<&T::threads>("threads", Unit::kCount, "threads"),
        D::field<&T::read_bytes_per_s>("read_bytes_per_s", Unit::kNone,
                                       "storage reads, bytes per second (/proc/PID/io)"),
        D::field<&T::write_bytes_per_s>("write_bytes_per_s", Unit::kNone,
                                        "storage writes, bytes per second"),
        D::field<&T::voluntary_switches_per_s>("voluntary_switches_per_s", Unit::kNone,
                                               "of the main thread, per second"),
        D::field<&T::involuntary_switches_per_s>("involuntary_switches_per_s", Unit::kNone,
                                                 "of the main thread, per second"),
    };
    return k;
  }
};

template <>
struct Fields<live::GpuProcess> {
  static constexpr std::string_view kName = "MonitorGpuProcess";
  static std::span<const Field> list() {
    using T = live::GpuProcess;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::pid>("pid", Unit::kNone, "process id"),
        D::field<&T::used_memory_bytes>("used_memory_bytes", Unit::kBytes,
                                        "device memory it holds (null under MIG, WSL)"),
        D::field<&T::in_tree>("in_tree", Unit::kNone, "one of the monitored processes"),
    };
    return k;
  }
};

template <>
struct Fields<live::GpuSample> {
  static constexpr std::string_view kName = "MonitorGpuSample";
  static std::span<const Field> list() {
    using T = live::GpuSample;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::index>("index", Unit::kNone, "GPU index"),
        D::field<&T::utilization_share>("utilization_share", Unit::kShare,
                                        "time a kernel was running (NVML's definition)"),
        D::field<&T::memory_utilization_share>("memory_utilization_share", Unit::kShare,
                                               "time device memory was read or written"),
        D::field<&T::memory_used_bytes>("memory_used_bytes", Unit::kBytes, "device memory used"),
        D::field<&T::memory_total_bytes>("memory_total_bytes", Unit::kBytes, "device memory"),
        D::field<&T::power_w>("power_w", Unit::kNone, "power, in W"),
        D::field<&T::power_limit_w>("power_limit_w", Unit::kNone, "power limit, in W"),
        D::field<&T::sm_clock_mhz>("sm_clock_mhz", Unit::kNone, "SM clock, in MHz"),
        D::field<&T::memory_clock_mhz>("memory_clock_mhz", Unit::kNone, "memory clock, in MHz"),
        D::field<&T::temperature_c>("temperature_c", Unit::kNone, "temperature, in °C"),
        D::field<&T::pcie_tx_bytes_per_s>("pcie_tx_bytes_per_s", Unit::kNone,
                                          "PCIe sent, bytes per second"),
        D::field<&T::pcie_rx_bytes_per_s>("pcie_rx_bytes_per_s", Unit::kNone,
                                          "PCIe received, bytes per second"),
        D::field<&T::processes>("processes", Unit::kNone, "processes with a context on it"),
    };
    return k;
  }
};

template <>
struct Fields<live::Sample> {
  static constexpr std::string_view kName = "MonitorSample";
  static std::span<const Field> list() {
    using T = live::Sample;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::time_ns>("time_us", Unit::kMicrosecondsFromNs,
                              "since the monitor started (monotonic clock)"),
        D::field<&T::interval_ns>("interval_us", Unit::kMicrosecondsFromNs,
                                  "since the previous sample: the span the rates cover"),
        D::field<&T::machine_cpu_share>("machine_cpu_share", Unit::kShare,
                                        "busy share of all CPUs of the machine"),
        D::field<&T::machine_memory_used_bytes>("machine_memory_used_bytes", Unit::kBytes,
                                                "MemTotal - MemAvailable"),
        D::field<&T::monitor_cpu_cores>("monitor_cpu_cores", Unit::kNone,
                                        "the sampling thread's own CPU, in cores"),
        D::field<&T::processes>("processes", Unit::kNone, "the root first, while it lives"),
        D::field<&T::gpus>("gpus", Unit::kNone, "one per GPU"),
    };
    return k;
  }
};

template <>
struct Fields<live::GpuInfo> {
  static constexpr std::string_view kName = "MonitorGpu";
  static std::span<const Field> list() {
    using T = live::GpuInfo;
    using D = Describe<T>;
    static const Field k[] = {
        D::field<&T::index>("index", Unit::kNone, "GPU index"),
        D::field<&T::name>("name", Unit::kNone, "its name"),
        D::field<&T::uuid>("uuid", Unit::kNone, "its UUID"),
    };
    return k;
  }
};

// The document's figures: the timeline with the summary computed from it.
struct MonitorTimeline {
  const live::Timeline& timeline;
  const live::MonitorSummary& summary;
};

template <auto Member>
const auto& timeline_part(const MonitorTimeline& d) {
  return d.timeline.*Member;
}
inline std::uint64_t machine_memory_total(const MonitorTimeline& d) {
  return d.summary.machine_memory_total_bytes;
}
inline std::optional<std::string_view> gpu_status(const MonitorTimeline& d) {
  if (d.timeline.gpu_status.empty()) return std::nullopt;
  return d.timeline.gpu_status;
}
inline const live::MonitorSummary& monitor_summary(const MonitorTimeline& d) { return d.summary; }

template <>
struct Fields<MonitorTimeline> {
  static constexpr std::string_view kName = "MonitorTimeline";
  static std::span<const Field> list() {
    using L = live::Timeline;
    using D = Describe<MonitorTimeline>;
    static const Field k[] = {
        D::field<&timeline_part<&L::command>>("command", Unit::kNone,
                                              "what was run; empty when monitoring from Python"),
        D::field<&timeline_part<&L::root_pid>>("root_pid", Unit::kNone, "its process id"),
        D::field<&timeline_part<&L::exit_status>>(
            "exit_status", Unit::kNone, "shell-style (128 + N: signal N); null while running"),
        D::field<&timeline_part<&L::start_unix_ns>>("start_unix_us", Unit::kMicrosecondsFromNs,
                                                    "wall-clock time of the samples' origin"),
        D::field<&timeline_part<&L::requested_interval_ns>>(
            "requested_interval_us", Unit::kMicrosecondsFromNs, "the sampling interval asked"),
        D::field<&timeline_part<&L::duration_ns>>("duration_us", Unit::kMicrosecondsFromNs,
                                                  "from the start to the stop of sampling"),
        D::field<&timeline_part<&L::cpu_count>>("cpu_count", Unit::kCount,
                                                "online CPUs of the machine"),
        D::field<&machine_memory_total>("machine_memory_total_bytes", Unit::kBytes,
                                        "memory of the machine"),
        D::field<&gpu_status>("gpu_status", Unit::kNone,
                              "null when NVML answered, else why there are no GPU figures"),
        D::field<&timeline_part<&L::gpus>>("gpus", Unit::kNone, "the GPUs of the machine"),
        D::field<&timeline_part<&L::samples_taken>>("samples_taken", Unit::kCount, "samples taken"),
        D::field<&timeline_part<&L::sample_stride>>(
            "sample_stride", Unit::kCount,
            "past a bound only every Nth sample is kept, so the timeline spans the run"),
        D::field<&timeline_part<&L::monitor_cpu_seconds>>(
            "monitor_cpu_us", Unit::kMicrosecondsFromSeconds, "CPU time of the sampling thread"),
        D::field<&monitor_summary>("summary", Unit::kNone, "distributions and the verdict"),
        D::field<&timeline_part<&L::samples>>("samples", Unit::kNone, "the samples kept"),
    };
    return k;
  }
};

}  // namespace stepscope::figures
