// The monitor's renderers: a terminal summary, the JSON timeline (schema "stepscope.monitor",
// figures in figures/monitor_fields.h), a CSV of the samples, and the one-line live status.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "render/json/json_sink.h"
#include "stepscope/figures/monitor_fields.h"
#include "stepscope/live/monitor.h"

namespace stepscope::live {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;

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
  render::JsonSink sink(w);
  figures::write_members(sink, figures::MonitorTimeline{t, summary}, figures::Context{});
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
