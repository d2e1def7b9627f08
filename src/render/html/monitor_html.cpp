// The HTML page of a monitor timeline (`stepscope report timeline.json`): the verdict first, the
// summary's distributions, then the figures over time as line charts. The page shell, the CSS and
// the charts are the trace report's; every string from the document is escaped.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "render/downsample.h"
#include "render/html/html_escape.h"
#include "render/html/page.h"
#include "render/html/svg_chart.h"
#include "stepscope/live/timeline_document.h"

namespace stepscope::live {

namespace {

using render::html::escape;
using render::html::LineChart;
using render::html::Series;

constexpr std::size_t kMaxChartPoints = 1000;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;
constexpr const char* kGpuColors[] = {"#4c78a8", "#f58518", "#54a24b", "#e45756",
                                      "#72b7b2", "#eeca3b", "#b279a2", "#9d755d"};

double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

// A chart over the document's time axis (seconds). `series` hold one value per sample (NaN: not
// reported, drawn as 0); long series are down-sampled with LTTB, per series, and the union of the
// kept points is drawn, so that every series keeps its peaks within kMaxChartPoints points.
std::string line_chart(const MonitorTimelineDocument& doc, std::string id, std::string title,
                       std::string y_unit, std::vector<Series> series) {
  const std::size_t n = doc.time_us.size();
  std::vector<std::size_t> kept;
  if (n <= kMaxChartPoints || series.empty()) {
    for (std::size_t i = 0; i < n; ++i) kept.push_back(i);
  } else {
    const std::size_t target = std::max<std::size_t>(50, kMaxChartPoints / series.size());
    for (const Series& s : series) {
      std::vector<render::SeriesPoint> points(n);
      for (std::size_t i = 0; i < n; ++i) {
        points[i] = {doc.time_us[i], finite_or_zero(i < s.values.size() ? s.values[i] : 0)};
      }
      const std::vector<std::size_t> indices = render::lttb_indices(points, target);
      kept.insert(kept.end(), indices.begin(), indices.end());
    }
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  }
  LineChart chart{std::move(id), std::move(title),  {},    {},
                  "time (s)",    std::move(y_unit), false, {}};
  for (std::size_t i : kept) chart.x.push_back(doc.time_us[i] / 1e6);
  for (Series& s : series) {
    std::vector<double> values;
    values.reserve(kept.size());
    for (std::size_t i : kept)
      values.push_back(finite_or_zero(i < s.values.size() ? s.values[i] : 0));
    s.values = std::move(values);
    chart.series.push_back(std::move(s));
  }
  return render::html::draw(chart);
}

std::vector<double> scaled(const std::vector<double>& values, double scale) {
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(v * scale);
  return out;
}

std::string gpu_label(const GpuSeries& g) {
  return g.name.empty() ? fmt::format("GPU {}", g.index)
                        : fmt::format("GPU {} ({})", g.index, g.name);
}

struct Row {
  const char* name;
  const char* label;
  double scale;
  const char* unit;
  int decimals;
};

std::string distributions_table(const MonitorTimelineDocument& doc) {
  static constexpr Row kRows[] = {
      {"main_cpu_cores", "main process CPU", 1, "cores", 2},
      {"workers_cpu_cores", "workers CPU (sum)", 1, "cores", 2},
      {"worker_mean_cpu_cores", "CPU per worker", 1, "cores", 2},
      {"machine_cpu_share", "machine CPU", 100, "%", 0},
      {"tree_rss_bytes", "RSS of the processes", 1 / kGiB, "GiB", 2},
      {"machine_memory_used_bytes", "machine memory used", 1 / kGiB, "GiB", 1},
      {"gpu_utilization_share", "GPU utilisation", 100, "%", 0},
      {"gpu_memory_utilization_share", "GPU memory busy", 100, "%", 0},
      {"gpu_memory_used_share", "GPU memory used", 100, "%", 0},
      {"gpu_power_w", "GPU power", 1, "W", 0},
      {"gpu_sm_clock_mhz", "SM clock", 1, "MHz", 0},
      {"gpu_temperature_c", "GPU temperature", 1, "°C", 0},
  };
  std::string rows;
  for (const Row& r : kRows) {
    const Distribution* d = doc.distribution(r.name);
    if (d == nullptr || d->count == 0) continue;
    // Bytes under a GiB read better in MiB.
    const bool mib = std::string_view(r.unit) == "GiB" && d->p95 < kGiB;
    const double scale = mib ? 1 / kMiB : r.scale;
    const int decimals = mib ? 0 : r.decimals;
    const auto cell = [&](double v) {
      return std::isfinite(v) ? fmt::format("{:.{}f}", v * scale, decimals) : std::string("–");
    };
    rows += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td>{}</td></tr>\n",
        r.label, cell(d->p5), cell(d->p50), cell(d->p95), mib ? "MiB" : r.unit);
  }
  if (rows.empty()) return "<p class=\"note\">No figures were sampled.</p>\n";
  return "<table id=\"distributions\"><thead><tr><th>figure</th><th>p5</th><th>p50</th>"
         "<th>p95</th><th>unit</th></tr></thead><tbody>\n" +
         rows + "</tbody></table>\n";
}

std::string verdict_section(const TimelineVerdict& v) {
  const bool healthy = v.bottleneck == "healthy";
  std::string out =
      fmt::format("<div class=\"verdict{}\" id=\"verdict\"><p class=\"bottleneck\">{}</p><p>{}</p>",
                  healthy ? " healthy" : "", escape(v.bottleneck.empty() ? v.id : v.bottleneck),
                  escape(v.headline));
  if (!v.reasons.empty()) {
    out += "<ul>";
    for (const std::string& r : v.reasons) out += "<li>" + escape(r) + "</li>";
    out += "</ul>";
  }
  if (!v.next_step.empty()) out += "<p><b>Next:</b> " + escape(v.next_step) + "</p>";
  if (!v.id.empty()) out += "<p class=\"note\">verdict id: " + escape(v.id) + "</p>";
  return out + "</div>\n";
}

std::string processes_note(const MonitorTimelineDocument& doc) {
  if (doc.processes.empty()) return {};
  constexpr std::size_t kListed = 20;
  std::string main;
  std::string workers;
  std::size_t worker_count = 0;
  for (const TimelineProcess& p : doc.processes) {
    const std::string text = fmt::format("{} ({})", escape(p.name), p.pid);
    if (p.is_root) {
      if (main.empty()) main = text;
    } else if (worker_count++ < kListed) {
      workers += (workers.empty() ? "" : ", ") + text;
    }
  }
  std::string out = "<p class=\"meta\" id=\"processes\">main process: " +
                    (main.empty() ? std::string("not seen") : main);
  if (worker_count > 0) {
    out += fmt::format(" · {} worker process(es): {}", worker_count, workers);
    if (worker_count > kListed) out += fmt::format(", and {} more", worker_count - kListed);
  }
  return out + "</p>\n";
}

}  // namespace

std::string render_monitor_html(const MonitorTimelineDocument& doc) {
  std::string command;
  for (const std::string& a : doc.command) command += (command.empty() ? "" : " ") + a;
  if (command.empty()) command = "(monitored from Python)";
  std::string body = fmt::format(
      "<header><h1>stepscope monitor</h1><p class=\"meta\">{} · stepscope {} · {:.1f} s · {} "
      "samples (interval {:.0f} ms) · {} CPUs · {} GPU(s){}</p></header>\n",
      escape(command), STEPSCOPE_VERSION, doc.duration_s, doc.time_us.size(),
      doc.requested_interval_s * 1e3, doc.cpu_count, doc.gpus.size(),
      doc.exit_status ? fmt::format(" · exit status {}", *doc.exit_status) : std::string());
  body += processes_note(doc);
  if (!doc.gpu_status.empty()) {
    body += "<p class=\"note\">GPU: " + escape(doc.gpu_status) + "</p>\n";
  }
  if (doc.sample_stride > 1) {
    body +=
        fmt::format("<p class=\"note\">A long run: one sample in {} was kept, of {} taken.</p>\n",
                    doc.sample_stride, doc.samples_taken);
  }
  body += "<h2>Verdict</h2>\n" + verdict_section(doc.verdict);
  body += "<h2>Distributions</h2>\n" + distributions_table(doc);
  body += "<h2>Over time</h2>\n<section id=\"over-time\">\n";
  if (doc.time_us.empty()) {
    body += "<p class=\"note\">The document holds no samples.</p>\n</section>\n";
    return render::html::page("stepscope monitor: " + command, body);
  }
  body += "<h3>CPU of the processes</h3>\n" +
          line_chart(doc, "monitor-cpu", "CPU of the processes", "cores",
                     {Series{"main process", "#4c78a8", doc.main_cpu_cores},
                      Series{"workers (sum)", "#f58518", doc.workers_cpu_cores}});
  body +=
      "<h3>Machine CPU</h3>\n" +
      line_chart(doc, "monitor-machine-cpu", fmt::format("Machine CPU ({} CPUs)", doc.cpu_count),
                 "%", {Series{"machine CPU busy", "#54a24b", scaled(doc.machine_cpu_share, 100)}});
  if (!doc.gpu_series.empty()) {
    std::vector<Series> utilization;
    std::vector<Series> memory;
    for (std::size_t i = 0; i < doc.gpu_series.size(); ++i) {
      const GpuSeries& g = doc.gpu_series[i];
      const char* color = kGpuColors[i % std::size(kGpuColors)];
      utilization.push_back(Series{gpu_label(g), color, scaled(g.utilization_share, 100)});
      memory.push_back(Series{gpu_label(g) + " used", color, scaled(g.memory_used_share, 100)});
      memory.push_back(Series{gpu_label(g) + " busy", kGpuColors[(i + 4) % std::size(kGpuColors)],
                              scaled(g.memory_utilization_share, 100)});
    }
    body += "<h3>GPU utilisation</h3>\n" + line_chart(doc, "monitor-gpu-utilization",
                                                      "GPU utilisation (a kernel running)", "%",
                                                      std::move(utilization));
    body += "<h3>GPU memory</h3>\n" + line_chart(doc, "monitor-gpu-memory",
                                                 "GPU memory: used, and busy (read or written)",
                                                 "%", std::move(memory));
  }
  const double rss_max = doc.tree_rss_bytes.empty() ? 0
                                                    : *std::max_element(doc.tree_rss_bytes.begin(),
                                                                        doc.tree_rss_bytes.end());
  const bool gib = rss_max >= kGiB;
  body += "<h3>Memory of the processes</h3>\n" +
          line_chart(doc, "monitor-rss", "RSS of the processes", gib ? "GiB" : "MiB",
                     {Series{"RSS (all processes)", "#b279a2",
                             scaled(doc.tree_rss_bytes, 1 / (gib ? kGiB : kMiB))}});
  body += "</section>\n";
  return render::html::page("stepscope monitor: " + command, body);
}

}  // namespace stepscope::live
