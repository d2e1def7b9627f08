// The monitor's renderers: a terminal summary, the JSON timeline (schema "stepscope.monitor",
// described in docs/json-schema.md), a CSV of the samples, and the one-line live status.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "render/json_writer.h"
#include "stepscope/live/monitor.h"

namespace stepscope::live {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;

void write_distribution(render::JsonWriter& w, std::string_view name, const Distribution& d) {
  w.key(name);
  w.begin_object();
  w.field("count", static_cast<std::uint64_t>(d.count));
  w.field("p5", d.p5);
  w.field("p50", d.p50);
  w.field("p95", d.p95);
  w.field("mean", d.mean);
  w.field("max", d.max);
  w.end_object();
}

template <typename T>
void field_optional(render::JsonWriter& w, std::string_view name, const std::optional<T>& v) {
  w.key(name);
  if (v) {
    w.value(*v);
  } else {
    w.null();
  }
}

void write_verdict(render::JsonWriter& w, const MonitorVerdict& v) {
  w.key("verdict");
  w.begin_object();
  w.field("bottleneck", to_string(v.bottleneck));
  w.field("id", v.id);
  w.field("headline", v.headline);
  w.key("reasons");
  w.begin_array();
  for (const std::string& r : v.reasons) w.value(r);
  w.end_array();
  w.field("next_step", v.next_step);
  w.end_object();
}

void write_summary(render::JsonWriter& w, const MonitorSummary& s) {
  w.key("summary");
  w.begin_object();
  w.field("startup_us", s.startup_s * 1e6);
  w.field("samples", s.samples);
  w.field("duration_us", s.duration_s * 1e6);
  w.field("mean_interval_us", s.mean_interval_ms * 1e3);
  w.field("max_workers", s.max_workers);
  w.field("gpu_available", s.gpu_available);
  w.key("gpus_used");
  w.begin_array();
  for (std::uint32_t g : s.gpus_used) w.value(g);
  w.end_array();
  w.field("gpus_used_seen", s.gpus_used_seen);
  w.field("monitor_cpu_share_of_core", s.monitor_cpu_share_of_core);
  w.key("distributions");
  w.begin_object();
  write_distribution(w, "main_cpu_cores", s.main_cpu_cores);
  write_distribution(w, "workers_cpu_cores", s.workers_cpu_cores);
  write_distribution(w, "worker_mean_cpu_cores", s.worker_mean_cpu_cores);
  write_distribution(w, "machine_cpu_share", s.machine_cpu_share);
  write_distribution(w, "tree_rss_bytes", s.tree_rss_bytes);
  write_distribution(w, "machine_memory_used_bytes", s.machine_memory_used_bytes);
  write_distribution(w, "gpu_utilization_share", s.gpu_utilization_share);
  write_distribution(w, "gpu_memory_utilization_share", s.gpu_memory_utilization_share);
  write_distribution(w, "gpu_memory_used_share", s.gpu_memory_used_share);
  write_distribution(w, "gpu_power_w", s.gpu_power_w);
  write_distribution(w, "gpu_sm_clock_mhz", s.gpu_sm_clock_mhz);
  write_distribution(w, "gpu_temperature_c", s.gpu_temperature_c);
  w.end_object();
  write_verdict(w, s.verdict);
  w.end_object();
}

void write_process(render::JsonWriter& w, const ProcessSample& p) {
  w.begin_object();
  w.field("pid", p.pid);
  w.field("ppid", p.ppid);
  w.field("name", p.name);
  w.field("root", p.is_root);
  w.field("cpu_cores", p.cpu_cores);
  w.field("rss_bytes", p.rss_bytes);
  w.field("threads", p.threads);
  field_optional(w, "read_bytes_per_s", p.read_bytes_per_s);
  field_optional(w, "write_bytes_per_s", p.write_bytes_per_s);
  w.field("voluntary_switches_per_s", p.voluntary_switches_per_s);
  w.field("involuntary_switches_per_s", p.involuntary_switches_per_s);
  w.end_object();
}

void write_gpu(render::JsonWriter& w, const GpuSample& g) {
  w.begin_object();
  w.field("index", g.index);
  field_optional(w, "utilization_share", g.utilization_share);
  field_optional(w, "memory_utilization_share", g.memory_utilization_share);
  field_optional(w, "memory_used_bytes", g.memory_used_bytes);
  field_optional(w, "memory_total_bytes", g.memory_total_bytes);
  field_optional(w, "power_w", g.power_w);
  field_optional(w, "power_limit_w", g.power_limit_w);
  field_optional(w, "sm_clock_mhz", g.sm_clock_mhz);
  field_optional(w, "memory_clock_mhz", g.memory_clock_mhz);
  field_optional(w, "temperature_c", g.temperature_c);
  field_optional(w, "pcie_tx_bytes_per_s", g.pcie_tx_bytes_per_s);
  field_optional(w, "pcie_rx_bytes_per_s", g.pcie_rx_bytes_per_s);
  w.key("processes");
  w.begin_array();
  for (const GpuProcess& p : g.processes) {
    w.begin_object();
    w.field("pid", p.pid);
    field_optional(w, "used_memory_bytes", p.used_memory_bytes);
    w.field("in_tree", p.in_tree);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

void write_sample(render::JsonWriter& w, const Sample& s) {
  w.begin_object();
  w.field_us("time_us", s.time_ns);
  w.field_us("interval_us", s.interval_ns);
  w.field("machine_cpu_share", s.machine_cpu_share);
  w.field("machine_memory_used_bytes", s.machine_memory_used_bytes);
  w.field("monitor_cpu_cores", s.monitor_cpu_cores);
  w.key("processes");
  w.begin_array();
  for (const ProcessSample& p : s.processes) write_process(w, p);
  w.end_array();
  w.key("gpus");
  w.begin_array();
  for (const GpuSample& g : s.gpus) write_gpu(w, g);
  w.end_array();
  w.end_object();
}

std::string cell(const std::optional<double>& v) {
  return v ? fmt::format("{:.6g}", *v) : std::string();
}
template <typename T>
std::string cell(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

// "p5 / p50 / p95" of a distribution in a unit, or a dash when nothing was sampled.
std::string row(std::string_view label, const Distribution& d, double scale, std::string_view unit,
                int decimals) {
  if (d.count == 0) return fmt::format("  {:<22}{:>9}\n", label, "-");
  return fmt::format("  {:<22}{:>9.{}f}{:>9.{}f}{:>9.{}f}  {}\n", label, d.p5 * scale, decimals,
                     d.p50 * scale, decimals, d.p95 * scale, decimals, unit);
}

}  // namespace

std::string render_timeline_json(const Timeline& t, const MonitorSummary& summary) {
  render::JsonWriter w;
  w.begin_object();
  w.field("schema", "stepscope.monitor");
  w.field("schema_version", kTimelineSchemaVersion);
  w.field("stepscope_version", STEPSCOPE_VERSION);
  w.key("command");
  w.begin_array();
  for (const std::string& a : t.command) w.value(a);
  w.end_array();
  w.field("root_pid", t.root_pid);
  field_optional(w, "exit_status", t.exit_status);
  w.field_us("start_unix_us", t.start_unix_ns);
  w.field_us("requested_interval_us", t.requested_interval_ns);
  w.field_us("duration_us", t.duration_ns);
  w.field("cpu_count", t.cpu_count);
  w.field("machine_memory_total_bytes", summary.machine_memory_total_bytes);
  w.key("gpu_status");
  if (t.gpu_status.empty()) {
    w.null();
  } else {
    w.value(t.gpu_status);
  }
  w.key("gpus");
  w.begin_array();
  for (const GpuInfo& g : t.gpus) {
    w.begin_object();
    w.field("index", g.index);
    w.field("name", g.name);
    w.field("uuid", g.uuid);
    w.end_object();
  }
  w.end_array();
  w.field("samples_taken", t.samples_taken);
  w.field("sample_stride", t.sample_stride);
  w.field("monitor_cpu_us", t.monitor_cpu_seconds * 1e6);
  write_summary(w, summary);
  w.key("samples");
  w.begin_array();
  for (const Sample& s : t.samples) write_sample(w, s);
  w.end_array();
  w.end_object();
  std::string text = w.take();
  text += '\n';
  return text;
}

std::string render_timeline_csv(const Timeline& t) {
  std::string out =
      "time_s,interval_ms,machine_cpu_share,machine_memory_used_bytes,monitor_cpu_cores,"
      "main_pid,main_cpu_cores,main_rss_bytes,main_threads,main_read_bytes_per_s,"
      "main_write_bytes_per_s,main_voluntary_switches_per_s,main_involuntary_switches_per_s,"
      "workers,workers_cpu_cores,workers_rss_bytes";
  for (const GpuInfo& g : t.gpus) {
    for (const char* f : {"utilization_share", "memory_utilization_share", "memory_used_bytes",
                          "power_w", "sm_clock_mhz", "memory_clock_mhz", "temperature_c",
                          "pcie_tx_bytes_per_s", "pcie_rx_bytes_per_s"}) {
      out += fmt::format(",gpu{}_{}", g.index, f);
    }
  }
  out += '\n';
  for (const Sample& s : t.samples) {
    out += fmt::format("{:.6f},{:.3f},{:.4f},{},{:.4f}", s.time_ns / 1e9, s.interval_ns / 1e6,
                       s.machine_cpu_share, s.machine_memory_used_bytes, s.monitor_cpu_cores);
    const ProcessSample* main = nullptr;
    double workers_cpu = 0;
    std::uint64_t workers_rss = 0;
    int workers = 0;
    for (const ProcessSample& p : s.processes) {
      if (p.is_root) {
        main = &p;
      } else {
        workers_cpu += p.cpu_cores;
        workers_rss += p.rss_bytes;
        ++workers;
      }
    }
    if (main != nullptr) {
      out += fmt::format(",{},{:.4f},{},{},{},{},{:.1f},{:.1f}", main->pid, main->cpu_cores,
                         main->rss_bytes, main->threads, cell(main->read_bytes_per_s),
                         cell(main->write_bytes_per_s), main->voluntary_switches_per_s,
                         main->involuntary_switches_per_s);
    } else {
      out += ",,,,,,,,";
    }
    out += fmt::format(",{},{:.4f},{}", workers, workers_cpu, workers_rss);
    for (const GpuInfo& info : t.gpus) {
      const auto g = std::find_if(s.gpus.begin(), s.gpus.end(),
                                  [&](const GpuSample& x) { return x.index == info.index; });
      if (g == s.gpus.end()) {
        out += ",,,,,,,,,";
        continue;
      }
      out += fmt::format(",{},{},{},{},{},{},{},{},{}", cell(g->utilization_share),
                         cell(g->memory_utilization_share), cell(g->memory_used_bytes),
                         cell(g->power_w), cell(g->sm_clock_mhz), cell(g->memory_clock_mhz),
                         cell(g->temperature_c), cell(g->pcie_tx_bytes_per_s),
                         cell(g->pcie_rx_bytes_per_s));
    }
    out += '\n';
  }
  return out;
}

constexpr double kOverheadMinimumSeconds = 5.0;

std::string render_summary_text(const MonitorSummary& s) {
  std::string out =
      fmt::format("stepscope monitor: {:.1f} s, {} samples, mean interval {:.1f} ms\n",
                  s.duration_s, s.samples, s.mean_interval_ms);
  if (s.startup_s > 0) {
    out += fmt::format("  from the first GPU activity on: start-up ({:.1f} s) left out\n",
                       s.startup_s);
  }
  out += fmt::format("  {:<22}{:>9}{:>9}{:>9}\n", "", "p5", "p50", "p95");
  out += row("main process CPU", s.main_cpu_cores, 1, "cores", 2);
  if (s.max_workers > 0) {
    out += row(fmt::format("workers CPU ({})", s.max_workers), s.workers_cpu_cores, 1, "cores", 2);
    out += row("  per worker", s.worker_mean_cpu_cores, 1, "cores", 2);
  }
  out += row("machine CPU", s.machine_cpu_share, 100, fmt::format("% of {} CPUs", s.cpu_count), 0);
  out += row("RSS of the processes", s.tree_rss_bytes, 1 / kGiB, "GiB", 2);
  out += row("machine memory used", s.machine_memory_used_bytes, 1 / kGiB,
             fmt::format("GiB of {:.1f}", static_cast<double>(s.machine_memory_total_bytes) / kGiB),
             1);
  if (s.gpu_available) {
    out += row("GPU utilisation", s.gpu_utilization_share, 100, "%", 0);
    out += row("GPU memory busy", s.gpu_memory_utilization_share, 100, "%", 0);
    out += row("GPU memory used", s.gpu_memory_used_share, 100, "%", 0);
    out += row("GPU power", s.gpu_power_w, 1, "W", 0);
    out += row("SM clock", s.gpu_sm_clock_mhz, 1, "MHz", 0);
    out += row("GPU temperature", s.gpu_temperature_c, 1, "C", 0);
  } else {
    out += "  GPU                   no figures (see below)\n";
  }
  out += fmt::format("\nverdict: {} ({})\n  {}\n", s.verdict.id, to_string(s.verdict.bottleneck),
                     s.verdict.headline);
  for (const std::string& r : s.verdict.reasons) out += fmt::format("  - {}\n", r);
  out += fmt::format("  next: {}\n", s.verdict.next_step);
  // Over a short command the monitor's own start and stop dominate its share: not a figure.
  if (s.duration_s >= kOverheadMinimumSeconds) {
    out +=
        fmt::format("\nmonitor overhead: {:.2f}% of one core\n", s.monitor_cpu_share_of_core * 100);
  }
  return out;
}

std::string render_status_line(const LiveStatus& s) {
  if (!s.has_sample) return "stepscope monitor: starting";
  std::string line;
  if (s.gpu_utilization_share) {
    line += fmt::format("GPU {:3.0f}% mem {:3.0f}% | ", *s.gpu_utilization_share * 100,
                        s.gpu_memory_used_share.value_or(0) * 100);
  }
  line += fmt::format("main {:.2f} cores", s.main_cpu_cores);
  if (s.workers > 0)
    line += fmt::format(" | {} workers {:.2f} cores", s.workers, s.workers_cpu_cores);
  line += fmt::format(" | RSS {:.2f} GiB | machine CPU {:.0f}%",
                      static_cast<double>(s.tree_rss_bytes) / kGiB, s.machine_cpu_share * 100);
  return line;
}

}  // namespace stepscope::live
