// Samples the machine and one process tree through /proc: CPU, memory, threads, I/O and context
// switches of the root and of every descendant (DataLoader workers are children of the root).
// Each process's files stay open between samples; a process is reported from its second sample
// on, when there is an interval to turn its counters into rates.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "live/proc_file.h"
#include "stepscope/error.h"
#include "stepscope/live/sample.h"

namespace stepscope::live {

struct ProcessCounters {
  std::uint64_t cpu_ticks = 0;  // utime + stime of all threads, in clock ticks
  std::uint64_t rss_pages = 0;
  std::int32_t threads = 0;
  std::int32_t ppid = 0;
  std::optional<std::uint64_t> read_bytes;
  std::optional<std::uint64_t> write_bytes;
  std::uint64_t voluntary_switches = 0;
  std::uint64_t involuntary_switches = 0;
};

// Parses /proc/PID/stat ("pid (comm) state ppid ..."); the name may hold spaces and parentheses.
bool parse_proc_stat(std::string_view text, ProcessCounters& counters, std::string& name);

class ProcSampler {
 public:
  // Fails when the root process cannot be read.
  static Result<ProcSampler> open(std::int32_t root_pid);

  // Fills the machine figures and `processes` of `out` at monotonic time `now_ns`. With
  // `scan_all_threads`, children of every thread are looked for, not only of the main threads
  // (costlier, so the monitor does it about once a second).
  void sample(std::int64_t now_ns, bool scan_all_threads, Sample& out);

  [[nodiscard]] std::int32_t cpu_count() const { return cpu_count_; }

 private:
  struct Tracked {
    std::int32_t pid = 0;
    std::string name;
    ProcFile stat;
    ProcFile status;
    ProcFile io;
    ProcFile children;  // of the main thread
    std::optional<ProcessCounters> previous;
    std::int64_t previous_ns = 0;
  };
  explicit ProcSampler(std::int32_t root_pid);
  Tracked& track(std::int32_t pid);
  std::vector<std::int32_t> discover_tree(bool scan_all_threads);
  void sample_machine(Sample& out);
  std::optional<ProcessSample> sample_process(Tracked& tracked, std::int64_t now_ns);

  std::int32_t root_pid_ = 0;
  std::int32_t cpu_count_ = 1;
  double ticks_per_s_ = 100;
  std::uint64_t page_size_ = 4096;
  std::map<std::int32_t, Tracked> tracked_;
  ProcFile proc_stat_;
  ProcFile meminfo_;
  std::uint64_t previous_total_ticks_ = 0;
  std::uint64_t previous_idle_ticks_ = 0;
};

}  // namespace stepscope::live
