#include "render/terminal/compute_efficiency_text.h"

#include <fmt/format.h>

#include <algorithm>

#include "render/text_format.h"

namespace stepscope::render {

namespace {

// With the prefix that keeps the figure readable: CPU runs are in GFLOP/s, GPU runs in TFLOP/s.
std::string gflop(double flops) {
  if (flops >= 1e12) return fmt::format("{:.3f} TFLOP", flops / 1e12);
  if (flops >= 1e9) return fmt::format("{:.3f} GFLOP", flops / 1e9);
  return fmt::format("{:.3f} MFLOP", flops / 1e6);
}
std::string tflops(double rate) {
  if (rate >= 1) return fmt::format("{:.3f} TFLOP/s", rate);
  return fmt::format("{:.3f} GFLOP/s", rate * 1e3);
}

std::string mfu_line(const ComputeEfficiencyResult& e) {
  if (e.mfu) {
    return fmt::format("  MFU {} of the dense {} peak, {:.1f} TFLOP/s\n  peak of the {}: {}\n",
                       format_percent(*e.mfu), printable(e.dtype, 20), e.peak_tflops,
                       printable(e.device_name), printable(e.peak_source));
  }
  if (!e.device_name.empty()) {
    return fmt::format("  MFU unknown: no datasheet peak for {} in {}\n", printable(e.device_name),
                       printable(e.dtype, 20));
  }
  return "  MFU needs a GPU's peak: this trace has no device activity\n";
}

std::string ridge_line(const ComputeEfficiencyResult& e) {
  if (!e.ridge_point) return {};
  return fmt::format(
      "  roofline: {:.0f} GB/s memory bandwidth, ridge point {:.1f} FLOP/byte (ops below it are "
      "memory-bound)\n",
      e.peak_bandwidth_gbps, *e.ridge_point);
}

std::string intensity(const OpFlops& op) {
  return op.intensity ? fmt::format("{:.1f}", *op.intensity) : std::string("-");
}

// "memory" or "compute", with the achieved share of the roof at the op's intensity.
std::string bound(const OpFlops& op) {
  if (op.bound == "unknown") return "-";
  const std::string_view kind = op.bound == "memory_bound" ? "memory" : "compute";
  if (!op.attainable_share) return std::string(kind);
  return fmt::format("{} ({} of roof)", kind, format_percent(*op.attainable_share));
}

}  // namespace

std::string render_text(const ComputeEfficiencyResult& e, int top, std::size_t width) {
  if (!e.applicable) return {};
  std::string out = heading(
      "Compute efficiency (FLOPs of matrix multiplies and convolutions; G = 10^9, T = 10^12)");
  out += fmt::format("  {} per step, {} achieved over the step ({})\n", gflop(e.flops_per_step),
                     tflops(e.achieved_tflops_per_step), printable(e.dtype, 20));
  out += mfu_line(e);
  out += ridge_line(e);
  TextTable table;
  table.add_column("op", true);
  table.add_column("dtype", true, Importance::kMedium);
  table.add_column("calls", false, Importance::kLow);
  table.add_column("FLOPs", false, Importance::kMedium);
  table.add_column("time");
  table.add_column("achieved");
  table.add_column("from", true, Importance::kLow);
  table.add_column("FLOP/B", false, Importance::kLow);
  table.add_column("bound", true, Importance::kHigh);
  const auto limit = static_cast<std::size_t>(std::max(top, 1));
  for (std::size_t i = 0; i < e.ops.size() && i < limit; ++i) {
    const OpFlops& op = e.ops[i];
    table.add_row({printable(op.name), printable(op.dtype, 20),
                   format_count(static_cast<std::uint64_t>(op.calls)), gflop(op.flops),
                   format_ms(op.time_ns), tflops(op.achieved_tflops), op.source, intensity(op),
                   bound(op)});
  }
  return out + table.render("  ", width);
}

}  // namespace stepscope::render
