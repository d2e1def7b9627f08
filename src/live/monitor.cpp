// The sampling thread: one sample per interval on absolute deadlines (so the interval does not
// drift with the time a sample takes), stopped promptly through a stop_token.
#include "stepscope/live/monitor.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stop_token>
#include <thread>

#include "live/gpu_sampler.h"
#include "live/proc_sampler.h"

namespace stepscope::live {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int64_t kSlowFiguresEveryNs = 1'000'000'000;  // process scans, GPU process lists

std::int64_t thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

LiveStatus status_of(const Sample& s) {
  LiveStatus status;
  status.has_sample = true;
  status.machine_cpu_share = s.machine_cpu_share;
  for (const ProcessSample& p : s.processes) {
    status.tree_rss_bytes += p.rss_bytes;
    if (p.is_root) {
      status.main_cpu_cores = p.cpu_cores;
    } else {
      status.workers_cpu_cores += p.cpu_cores;
      ++status.workers;
    }
  }
  double utilization = 0;
  double used = 0;
  int counted = 0;
  for (const GpuSample& g : s.gpus) {
    if (!g.utilization_share || !g.memory_used_bytes || !g.memory_total_bytes) continue;
    utilization += *g.utilization_share;
    used += static_cast<double>(*g.memory_used_bytes) /
            static_cast<double>(std::max<std::uint64_t>(1, *g.memory_total_bytes));
    ++counted;
  }
  if (counted > 0) {
    status.gpu_utilization_share = utilization / counted;
    status.gpu_memory_used_share = used / counted;
  }
  return status;
}

}  // namespace

class Monitor::Impl {
 public:
  Impl(std::int32_t root_pid, MonitorOptions options, ProcSampler proc,
       std::optional<GpuSampler> gpu, std::string gpu_status)
      : options_(std::move(options)), proc_(std::move(proc)), gpu_(std::move(gpu)) {
    timeline_.root_pid = root_pid;
    timeline_.requested_interval_ns = options_.interval_ns;
    timeline_.cpu_count = proc_.cpu_count();
    timeline_.gpu_status = std::move(gpu_status);
    if (gpu_) timeline_.gpus = gpu_->devices();
    slow_every_ = std::max<std::int64_t>(1, kSlowFiguresEveryNs / options_.interval_ns);
  }

  void start() {
    thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
  }

  void stop() {
    if (!thread_.joinable()) return;
    thread_.request_stop();
    wake_.notify_all();
    thread_.join();
  }

  mutable std::mutex mutex_;
  Timeline timeline_;
  LiveStatus status_;

 private:
  void run(const std::stop_token& stop) {
    const Clock::time_point start = Clock::now();
    {
      std::lock_guard lock(mutex_);
      timeline_.start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
    }
    Sample baseline;  // counters to take rates from; not recorded
    proc_.sample(0, true, baseline);
    std::int64_t previous_ns = 0;
    std::int64_t previous_cpu_ns = thread_cpu_ns();
    const auto interval = std::chrono::nanoseconds(options_.interval_ns);
    Clock::time_point deadline = start + interval;
    std::mutex sleep_mutex;
    while (true) {
      {
        std::unique_lock lock(sleep_mutex);
        wake_.wait_until(lock, stop, deadline, [] { return false; });
      }
      if (stop.stop_requested()) break;
      const std::int64_t now_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
      take_sample(now_ns, now_ns - previous_ns, previous_cpu_ns);
      previous_ns = now_ns;
      deadline += interval;
      if (deadline < Clock::now()) deadline = Clock::now() + interval;  // fell behind: skip
    }
    std::lock_guard lock(mutex_);
    timeline_.duration_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    timeline_.monitor_cpu_seconds = static_cast<double>(thread_cpu_ns()) / 1e9;
  }

  void take_sample(std::int64_t now_ns, std::int64_t interval_ns, std::int64_t& previous_cpu_ns) {
    const bool slow = taken_ % slow_every_ == 0;
    Sample s;
    s.time_ns = now_ns;
    s.interval_ns = interval_ns;
    proc_.sample(now_ns, slow, s);
    if (gpu_) {
      std::set<std::int32_t> tree;
      for (const ProcessSample& p : s.processes) tree.insert(p.pid);
      gpu_->sample(now_ns, slow, tree, s.gpus);
    }
    const std::int64_t cpu_ns = thread_cpu_ns();
    s.monitor_cpu_cores = static_cast<double>(cpu_ns - previous_cpu_ns) /
                          static_cast<double>(std::max<std::int64_t>(1, interval_ns));
    previous_cpu_ns = cpu_ns;
    // Monitoring the calling process: its CPU includes this thread, which is not the job's.
    if (!s.processes.empty() && s.processes.front().is_root && s.processes.front().pid == self_) {
      ProcessSample& root = s.processes.front();
      root.cpu_cores = std::max(0.0, root.cpu_cores - s.monitor_cpu_cores);
    }
    record(std::move(s));
  }

  void record(Sample s) {
    std::lock_guard lock(mutex_);
    status_ = status_of(s);
    const std::int64_t number = taken_++;
    timeline_.samples_taken = taken_;
    if (number % timeline_.sample_stride != 0) return;
    timeline_.samples.push_back(std::move(s));
    if (timeline_.samples.size() < std::max<std::size_t>(2, options_.max_samples)) return;
    // Keep every other sample: the timeline still spans the whole run, at half the resolution.
    std::vector<Sample>& samples = timeline_.samples;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < samples.size(); i += 2) samples[kept++] = std::move(samples[i]);
    samples.resize(kept);
    timeline_.sample_stride *= 2;
  }

  MonitorOptions options_;
  ProcSampler proc_;
  std::optional<GpuSampler> gpu_;
  std::int64_t slow_every_ = 1;
  std::int64_t taken_ = 0;
  std::int32_t self_ = static_cast<std::int32_t>(::getpid());
  std::condition_variable_any wake_;
  std::jthread thread_;  // last: stopped and joined before the members it uses are destroyed
};

Result<std::unique_ptr<Monitor>> Monitor::start(std::int32_t root_pid, MonitorOptions options) {
  if (options.interval_ns < 1'000'000)
    return make_error(ErrorKind::kBadOption, "the interval must be at least 1 ms");
  STEPSCOPE_ASSIGN_OR_RETURN(ProcSampler proc, ProcSampler::open(root_pid));
  std::optional<GpuSampler> gpu;
  std::string gpu_status = "GPU sampling is off";
  if (options.sample_gpus) {
    Result<GpuSampler> opened = GpuSampler::open(options.nvml_library);
    if (opened) {
      gpu = std::move(*opened);
      gpu_status.clear();
    } else {
      gpu_status = opened.error().message;
    }
  }
  auto impl = std::make_unique<Impl>(root_pid, std::move(options), std::move(proc), std::move(gpu),
                                     std::move(gpu_status));
  impl->start();
  return std::unique_ptr<Monitor>(new Monitor(std::move(impl)));
}

Monitor::Monitor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Monitor::~Monitor() {
  if (impl_) impl_->stop();
}

void Monitor::stop() { impl_->stop(); }

Timeline Monitor::timeline() const {
  std::lock_guard lock(impl_->mutex_);
  return impl_->timeline_;
}

LiveStatus Monitor::status() const {
  std::lock_guard lock(impl_->mutex_);
  return impl_->status_;
}

std::string Monitor::gpu_status() const {
  std::lock_guard lock(impl_->mutex_);
  return impl_->timeline_.gpu_status;
}

}  // namespace stepscope::live
