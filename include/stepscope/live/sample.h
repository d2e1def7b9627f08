// What the live monitor records: one Sample per interval with the machine, the monitored process
// tree and each GPU, and the Timeline that holds them. Plain data; every rate is over the interval
// that ends at the sample, every figure carries its unit in its name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stepscope::live {

// One process of the monitored tree: the root (the command, or the Python process) or one of its
// descendants (DataLoader workers, compile workers, ...).
struct ProcessSample {
  std::int32_t pid = 0;
  std::int32_t ppid = 0;
  std::string name;      // /proc/PID/comm
  bool is_root = false;  // the monitored process itself; the others are its descendants
  double cpu_cores = 0;  // user + system CPU time over the interval / the interval: 1 = one core
  std::uint64_t rss_bytes = 0;
  std::int32_t threads = 0;
  // Storage I/O from /proc/PID/io (absent where the kernel refuses it).
  std::optional<double> read_bytes_per_s;
  std::optional<double> write_bytes_per_s;
  // Context switches of the process's main thread (the kernel counts them per thread; the main
  // thread is the one that runs the training loop).
  double voluntary_switches_per_s = 0;
  double involuntary_switches_per_s = 0;
};

// A process that holds a context on a GPU, as NVML lists it.
struct GpuProcess {
  std::uint32_t pid = 0;
  std::optional<std::uint64_t> used_memory_bytes;  // absent where NVML does not say (MIG, WSL)
  bool in_tree = false;                            // one of the monitored processes
};

// One GPU; a figure is absent when the device or the driver does not report it.
struct GpuSample {
  std::uint32_t index = 0;
  std::optional<double> utilization_share;         // time a kernel was running (NVML's definition)
  std::optional<double> memory_utilization_share;  // time device memory was read or written
  std::optional<std::uint64_t> memory_used_bytes;
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<std::uint32_t> sm_clock_mhz;
  std::optional<std::uint32_t> memory_clock_mhz;
  std::optional<std::uint32_t> temperature_c;
  std::optional<double> pcie_tx_bytes_per_s;  // from the driver's byte counters, where it has them
  std::optional<double> pcie_rx_bytes_per_s;
  std::vector<GpuProcess> processes;
};

struct Sample {
  std::int64_t time_ns = 0;      // since the monitor started (monotonic clock)
  std::int64_t interval_ns = 0;  // since the previous sample: the span the rates cover
  double machine_cpu_share = 0;  // busy share of all CPUs of the machine, 0..1
  std::uint64_t machine_memory_used_bytes = 0;  // MemTotal - MemAvailable
  std::uint64_t machine_memory_total_bytes = 0;
  std::vector<ProcessSample> processes;  // the root first, when it is still alive
  std::vector<GpuSample> gpus;
  double monitor_cpu_cores = 0;  // the sampling thread's own CPU over the interval
};

struct GpuInfo {
  std::uint32_t index = 0;
  std::string name;
  std::string uuid;
};

struct Timeline {
  std::int32_t root_pid = 0;
  std::vector<std::string> command;  // what the CLI ran; empty when monitoring from Python
  std::int64_t requested_interval_ns = 0;
  std::int64_t start_unix_ns = 0;  // wall-clock time of the first sample's origin
  std::int64_t duration_ns = 0;    // from the start to the stop of sampling
  std::int32_t cpu_count = 0;      // online CPUs of the machine
  // GPUs: `gpu_status` is empty when NVML answered, otherwise why there are no GPU figures.
  std::string gpu_status;
  std::vector<GpuInfo> gpus;
  // Samples kept: past a bound only every `sample_stride`-th sample is kept, so that a long job
  // keeps a bounded timeline that still spans the whole run uniformly.
  std::vector<Sample> samples;
  std::int64_t sample_stride = 1;
  std::int64_t samples_taken = 0;
  // The monitor's own cost: CPU time of its sampling thread (the CLI adds its own main thread).
  double monitor_cpu_seconds = 0;
  std::optional<std::int32_t> exit_status;  // the command's, shell-style (128 + N: signal N)
};

}  // namespace stepscope::live
