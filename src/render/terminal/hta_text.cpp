#include "render/terminal/hta_text.h"

#include <fmt/core.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

std::string us(std::int64_t ns) { return fmt::format("{:.3f} µs", static_cast<double>(ns) / 1e3); }

std::string rank_section(const hta::RankFigures& rank, int top) {
  std::string out = fmt::format("  rank {}\n", rank.rank);
  if (!rank.has_gpu_rows) return out + "    no GPU rows: HTA fails here (IndexError)\n";
  const hta::Temporal& t = rank.temporal;
  out += fmt::format(
      "    temporal: span {}, idle {} ({:.2f} %), compute {} ({:.2f} %), non-compute {} ({:.2f} "
      "%)\n",
      us(t.kernel_span_ns), us(t.idle_ns), t.idle_percent, us(t.compute_ns), t.compute_percent,
      us(t.non_compute_ns), t.non_compute_percent);
  out += fmt::format("    comm/comp overlap: {}\n",
                     rank.comm_comp_overlap_percent
                         ? fmt::format("{:.2f} %", *rank.comm_comp_overlap_percent)
                         : std::string("null (no communication)"));
  out += fmt::format(
      "    launches: {} pairs, Σ cpu {}, Σ gpu {}, Σ delay {}, {} over 50 µs, {} delays over 100 "
      "µs\n",
      rank.launches.pairs, us(rank.launches.cpu_duration_ns), us(rank.launches.gpu_duration_ns),
      us(rank.launches.launch_delay_ns), rank.launches.cpu_duration_over_50us,
      rank.launches.launch_delay_over_100us);
  TextTable idle;
  for (const char* column : {"stream", "host wait", "kernel wait", "other"})
    idle.add_column(column);
  for (const hta::IdleStream& s : rank.idle) {
    idle.add_row(
        {std::to_string(s.stream), us(s.host_wait_ns), us(s.kernel_wait_ns), us(s.other_ns)});
  }
  out += idle.render("    ");
  std::vector<hta::KernelStats> kernels = rank.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.sum_ns > b.sum_ns; });
  TextTable table;
  table.add_column("kernel", true);
  for (const char* column : {"type", "count", "sum", "mean", "HTA stats"}) table.add_column(column);
  for (std::size_t k = 0; k < kernels.size() && k < static_cast<std::size_t>(std::max(top, 1));
       ++k) {
    table.add_row(
        {printable(kernels[k].name, 50), std::string(hta::to_string(kernels[k].type)),
         std::to_string(kernels[k].count), us(kernels[k].sum_ns),
         fmt::format("{:.2f} µs", kernels[k].mean_ns / 1e3),
         kernels[k].hta_stats_are_per_name_totals ? "per-name totals (wrong)" : "per instance"});
  }
  out += table.render("    ");
  return out;
}

}  // namespace

std::string render_text(const hta::HtaReport& report, int top) {
  std::string out =
      heading("HTA figures (compat-hta: HolisticTraceAnalysis 0.6.1, artefacts included)");
  std::string steps;
  for (std::int64_t step : report.profiler_steps)
    steps += fmt::format("{}{}", steps.empty() ? "" : ", ", step);
  out += fmt::format("  profiler steps: {}\n", steps.empty() ? "none" : steps);
  for (const hta::ClassLabel& label : report.kernel_classes) {
    out += fmt::format("  {}: {} ({:.1f} %)\n", label.label, us(label.sum_ns), label.percent);
  }
  for (const hta::RankFigures& rank : report.ranks) out += rank_section(rank, top);
  std::string quirks;
  for (const std::string& quirk : report.quirks)
    quirks += fmt::format("{}{}", quirks.empty() ? "" : ", ", quirk);
  out += fmt::format("  artefacts reproduced: {}\n", quirks);
  return out;
}

}  // namespace stepscope::render
