#include "live/proc_sampler.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <set>
#include <string>

namespace stepscope::live {

namespace {

std::string proc_path(std::int32_t pid, const char* file) {
  return "/proc/" + std::to_string(pid) + "/" + file;
}

// Whitespace-separated unsigned numbers; stops at the first token that is not one.
template <std::size_t N>
std::size_t parse_numbers(std::string_view text, std::array<std::uint64_t, N>& out) {
  std::size_t count = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (count < N) {
    while (p < end && (*p == ' ' || *p == '\n')) ++p;
    if (p == end) break;
    std::int64_t value = 0;  // signed: a few stat fields are, and may be -1
    const auto [next, error] = std::from_chars(p, end, value);
    if (error != std::errc()) break;
    out[count++] = value < 0 ? 0 : static_cast<std::uint64_t>(value);
    p = next;
  }
  return count;
}

void append_pids(std::string_view text, std::vector<std::int32_t>& pids) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    std::int32_t pid = 0;
    const auto [next, error] = std::from_chars(p, end, pid);
    if (error == std::errc()) {
      pids.push_back(pid);
      p = next;
    } else {
      ++p;
    }
  }
}

double per_second(std::uint64_t now, std::uint64_t before, double seconds) {
  return now >= before ? static_cast<double>(now - before) / seconds : 0.0;
}

}  // namespace

bool parse_proc_stat(std::string_view text, ProcessCounters& counters, std::string& name) {
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return false;
  }
  name.assign(text.substr(open + 1, close - open - 1));
  std::string_view rest = text.substr(close + 1);
  // Field 3 is the state letter; numbers start at field 4 (ppid). Field k is numbers[k - 4].
  const std::size_t state = rest.find_first_not_of(' ');
  if (state == std::string_view::npos) return false;
  rest = rest.substr(state + 1);
  std::array<std::uint64_t, 21> numbers{};
  if (parse_numbers(rest, numbers) < numbers.size()) return false;
  counters.ppid = static_cast<std::int32_t>(numbers[0]);
  counters.cpu_ticks = numbers[14 - 4] + numbers[15 - 4];
  counters.threads = static_cast<std::int32_t>(numbers[20 - 4]);
  counters.rss_pages = numbers[24 - 4];
  return true;
}

ProcSampler::ProcSampler(std::int32_t root_pid)
    : root_pid_(root_pid),
      cpu_count_(static_cast<std::int32_t>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)))),
      ticks_per_s_(static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)))),
      page_size_(static_cast<std::uint64_t>(std::max(1L, sysconf(_SC_PAGESIZE)))),
      proc_stat_("/proc/stat"),
      meminfo_("/proc/meminfo") {}

Result<ProcSampler> ProcSampler::open(std::int32_t root_pid) {
  ProcSampler sampler(root_pid);
  Tracked& root = sampler.track(root_pid);
  std::string_view text;
  ProcessCounters counters;
  if (!root.stat.read(text) || !parse_proc_stat(text, counters, root.name)) {
    Error error =
        make_error(ErrorKind::kIo, "cannot read process " + std::to_string(root_pid) + " in /proc");
    error.file = proc_path(root_pid, "stat");
    return error;
  }
  if (!sampler.proc_stat_.is_open()) return make_error(ErrorKind::kIo, "cannot read /proc/stat");
  return sampler;
}

ProcSampler::Tracked& ProcSampler::track(std::int32_t pid) {
  auto [it, inserted] = tracked_.try_emplace(pid);
  if (inserted) {
    Tracked& t = it->second;
    t.pid = pid;
    t.stat = ProcFile(proc_path(pid, "stat"));
    t.status = ProcFile(proc_path(pid, "status"));
    t.io = ProcFile(proc_path(pid, "io"));
    const std::string tid = std::to_string(pid);
    t.children = ProcFile("/proc/" + tid + "/task/" + tid + "/children");
  }
  return it->second;
}

// The tree from the root down. Processes that left it (ended, or re-parented away) are dropped.
std::vector<std::int32_t> ProcSampler::discover_tree(bool scan_all_threads) {
  std::vector<std::int32_t> tree{root_pid_};
  std::set<std::int32_t> seen{root_pid_};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const std::int32_t pid = tree[i];
    std::vector<std::int32_t> children;
    std::string_view text;
    if (track(pid).children.read(text)) append_pids(text, children);
    if (scan_all_threads) {
      const std::string folder = proc_path(pid, "task");
      if (DIR* dir = ::opendir(folder.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
          if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
          ProcFile file(folder + "/" + entry->d_name + "/children");
          if (file.read(text)) append_pids(text, children);
        }
        ::closedir(dir);
      }
    }
    for (std::int32_t child : children) {
      if (seen.insert(child).second) tree.push_back(child);
    }
  }
  std::erase_if(tracked_, [&](const auto& entry) { return !seen.contains(entry.first); });
  return tree;
}

void ProcSampler::sample_machine(Sample& out) {
  std::string_view text;
  if (proc_stat_.read(text) && text.starts_with("cpu ")) {
    std::array<std::uint64_t, 8> t{};  // user nice system idle iowait irq softirq steal
    parse_numbers(text.substr(4, text.find('\n')), t);
    std::uint64_t total = 0;
    for (std::uint64_t v : t) total += v;
    const std::uint64_t idle = t[3] + t[4];
    if (previous_total_ticks_ != 0 && total > previous_total_ticks_) {
      const double d_total = static_cast<double>(total - previous_total_ticks_);
      const double d_idle = static_cast<double>(idle - std::min(idle, previous_idle_ticks_));
      out.machine_cpu_share = std::clamp(1.0 - d_idle / d_total, 0.0, 1.0);
    }
    previous_total_ticks_ = total;
    previous_idle_ticks_ = idle;
  }
  std::uint64_t total_kb = 0;
  std::uint64_t available_kb = 0;
  if (meminfo_.read(text) && find_field(text, "MemTotal", total_kb) &&
      find_field(text, "MemAvailable", available_kb)) {
    out.machine_memory_total_bytes = total_kb * 1024;
    out.machine_memory_used_bytes = (total_kb - std::min(total_kb, available_kb)) * 1024;
  }
}

std::optional<ProcessSample> ProcSampler::sample_process(Tracked& t, std::int64_t now_ns) {
  std::string_view text;
  ProcessCounters now;
  if (!t.stat.read(text) || !parse_proc_stat(text, now, t.name)) return std::nullopt;
  if (t.status.read(text)) {
    find_field(text, "voluntary_ctxt_switches", now.voluntary_switches);
    find_field(text, "nonvoluntary_ctxt_switches", now.involuntary_switches);
  }
  std::uint64_t bytes = 0;
  if (t.io.read(text)) {
    if (find_field(text, "read_bytes", bytes)) now.read_bytes = bytes;
    if (find_field(text, "write_bytes", bytes)) now.write_bytes = bytes;
  }
  const std::optional<ProcessCounters> before = t.previous;
  const std::int64_t before_ns = t.previous_ns;
  t.previous = now;
  t.previous_ns = now_ns;
  if (!before || now_ns <= before_ns) return std::nullopt;

  const double seconds = static_cast<double>(now_ns - before_ns) / 1e9;
  ProcessSample s;
  s.pid = t.pid;
  s.ppid = now.ppid;
  s.name = t.name;
  s.is_root = t.pid == root_pid_;
  s.cpu_cores = per_second(now.cpu_ticks, before->cpu_ticks, seconds) / ticks_per_s_;
  s.rss_bytes = now.rss_pages * page_size_;
  s.threads = now.threads;
  if (now.read_bytes && before->read_bytes) {
    s.read_bytes_per_s = per_second(*now.read_bytes, *before->read_bytes, seconds);
  }
  if (now.write_bytes && before->write_bytes) {
    s.write_bytes_per_s = per_second(*now.write_bytes, *before->write_bytes, seconds);
  }
  s.voluntary_switches_per_s =
      per_second(now.voluntary_switches, before->voluntary_switches, seconds);
  s.involuntary_switches_per_s =
      per_second(now.involuntary_switches, before->involuntary_switches, seconds);
  return s;
}

void ProcSampler::sample(std::int64_t now_ns, bool scan_all_threads, Sample& out) {
  sample_machine(out);
  out.processes.clear();
  for (std::int32_t pid : discover_tree(scan_all_threads)) {
    if (std::optional<ProcessSample> s = sample_process(track(pid), now_ns)) {
      out.processes.push_back(std::move(*s));
    }
  }
}

}  // namespace stepscope::live
