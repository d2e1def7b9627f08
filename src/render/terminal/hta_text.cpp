#include "render/terminal/hta_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string us(std::int64_t ns) { return fmt::format("{:.3f} µs", static_cast<double>(ns) / 1e3); }

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += fmt::format("{}{}", out.empty() ? "" : ", ", part);
  return out;
}

std::string temporal_lines(const hta::RankFigures& rank) {
  const hta::Temporal& t = rank.temporal;
  std::string out = fmt::format(
      "    temporal: span {}, idle {} ({:.2f} %), compute {} ({:.2f} %), non-compute {} ({:.2f} "
      "%)\n",
      us(t.kernel_span_ns), us(t.idle_ns), t.idle_percent, us(t.compute_ns), t.compute_percent,
      us(t.non_compute_ns), t.non_compute_percent);
  out += fmt::format("    comm/comp overlap: {}\n",
                     rank.comm_comp_overlap_percent
                         ? fmt::format("{:.2f} %", *rank.comm_comp_overlap_percent)
                         : std::string("null (no communication)"));
  const hta::LaunchStats& l = rank.launches;
  out += fmt::format(
      "    launches: {} pairs, Σ cpu {}, Σ gpu {}, Σ delay {} (a sum of overlapping waits), {} "
      "calls over 50 µs, {} delays over 100 µs, {} short kernels\n",
      l.pairs, us(l.cpu_duration_ns), us(l.gpu_duration_ns), us(l.launch_delay_ns),
      l.cpu_duration_over_50us, l.launch_delay_over_100us, l.short_kernels);
  return out;
}

std::string idle_table(const hta::RankFigures& rank, std::size_t width) {
  TextTable table;
  for (const char* column : {"stream", "host wait", "kernel wait", "other"}) {
    table.add_column(column);
  }
  for (const hta::IdleStream& s : rank.idle) {
    table.add_row(
        {std::to_string(s.stream), us(s.host_wait_ns), us(s.kernel_wait_ns), us(s.other_ns)});
  }
  return "    idle time per stream:\n" + table.render("    ", width);
}

std::string queue_table(const hta::RankFigures& rank, std::size_t width) {
  TextTable table;
  for (const char* column : {"stream", "samples", "mean", "max"}) table.add_column(column);
  for (const hta::QueueStream& q : rank.queues) {
    table.add_row({std::to_string(q.stream), std::to_string(q.samples),
                   fmt::format("{:.3f}", q.mean), std::to_string(q.max)});
  }
  return "    queue length per stream:\n" + table.render("    ", width);
}

std::string hta_stats_note(const hta::KernelStats& k) {
  if (k.folded_into_others) return "folded into others";
  return k.hta_stats_are_per_name_totals ? "per-name totals (wrong)" : "per instance";
}

// The top kernels by total time, with per-instance statistics and what HTA's table shows.
std::string kernel_table(const hta::RankFigures& rank, int top, std::size_t width) {
  std::vector<hta::KernelStats> kernels = rank.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.sum_ns > b.sum_ns; });
  TextTable table;
  table.add_column("kernel", true);
  table.add_column("type", false, Importance::kMedium);
  table.add_column("count", false, Importance::kMedium);
  table.add_column("sum");
  table.add_column("mean", false, Importance::kLow);
  table.add_column("HTA stats", false, Importance::kHigh);
  const std::size_t rows = std::min(kernels.size(), static_cast<std::size_t>(std::max(top, 1)));
  for (std::size_t k = 0; k < rows; ++k) {
    table.add_row({printable(kernels[k].name, 50), std::string(hta::to_string(kernels[k].type)),
                   std::to_string(kernels[k].count), us(kernels[k].sum_ns),
                   fmt::format("{:.2f} µs", kernels[k].mean_ns / 1e3), hta_stats_note(kernels[k])});
  }
  std::string out = "    top kernels:\n" + table.render("    ", width);
  for (const hta::KernelStats& others : rank.others) {
    out += fmt::format("    HTA `others` ({}): {} over {} names\n", hta::to_string(others.type),
                       us(others.sum_ns), others.count);
  }
  return out;
}

std::string rank_section(const hta::RankFigures& rank, int top, std::size_t width) {
  std::string out = fmt::format("  rank {}\n", rank.rank);
  if (!rank.has_gpu_rows) return out + "    no GPU rows: HTA fails here (IndexError)\n";
  return out + temporal_lines(rank) + idle_table(rank, width) + queue_table(rank, width) +
         kernel_table(rank, top, width);
}

std::string class_lines(const hta::HtaReport& report) {
  std::string out = "  kernel classes (all ranks):\n";
  for (const hta::ClassLabel& label : report.kernel_classes) {
    if (label.sum_ns == 0) continue;  // zero-length sort artefacts (conformance.md §4.6)
    out += fmt::format("    {}: {} ({:.1f} %)\n", label.label, us(label.sum_ns), label.percent);
  }
  return out;
}

}  // namespace

std::string render_text(const hta::HtaReport& report, int top, std::size_t width) {
  std::string out =
      heading("HTA figures (compat-hta: HolisticTraceAnalysis 0.6.1, artefacts included)");
  std::vector<std::string> steps;
  for (std::int64_t step : report.profiler_steps) steps.push_back(std::to_string(step));
  out += fmt::format("  profiler steps: {}{}\n", steps.empty() ? "none" : joined(steps),
                     report.step_filter ? " (HTA drops the last one)" : "");
  out += fmt::format("  timestamps: {}\n", report.rounding ? "rounded inward to whole µs, as HTA"
                                                           : "exact (HTA would round them)");
  out += class_lines(report);
  for (const hta::RankFigures& rank : report.ranks) out += rank_section(rank, top, width);
  out += fmt::format("  artefacts reproduced: {}\n", joined(report.quirks));
  return out;
}

}  // namespace stepscope::render
