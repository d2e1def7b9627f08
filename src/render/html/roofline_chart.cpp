#include "render/html/roofline_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "render/html/html_escape.h"

namespace stepscope::render::html {

namespace {

constexpr double kWidth = 760;
constexpr double kHeight = 320;
constexpr double kLeft = 64;
constexpr double kRight = 16;
constexpr double kTop = 20;
constexpr double kBottom = 44;

// Decades that hold [lo, hi], so that the axes tick at powers of ten.
struct LogAxis {
  double lo_exp = 0;
  double hi_exp = 1;
  LogAxis(double lo, double hi)
      : lo_exp(std::floor(std::log10(lo))), hi_exp(std::ceil(std::log10(hi))) {
    if (hi_exp <= lo_exp) hi_exp = lo_exp + 1;
  }
  [[nodiscard]] double share(double v) const {
    return (std::log10(v) - lo_exp) / (hi_exp - lo_exp);
  }
};

std::string number(double v) {
  if (v >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

struct Plot {
  LogAxis x, y;
  [[nodiscard]] double px(double v) const { return kLeft + (kWidth - kLeft - kRight) * x.share(v); }
  [[nodiscard]] double py(double v) const {
    return kTop + (kHeight - kTop - kBottom) * (1 - y.share(v));
  }
};

std::string axes(const Plot& p) {
  std::string out;
  for (double e = p.x.lo_exp; e <= p.x.hi_exp; ++e) {
    const double v = std::pow(10.0, e);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        p.px(v), kTop, kHeight - kBottom, kHeight - kBottom + 14, number(v));
  }
  for (double e = p.y.lo_exp; e <= p.y.hi_exp; ++e) {
    const double v = std::pow(10.0, e);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>"
        "<text class=\"tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, kWidth - kRight, p.py(v), kLeft - 6, p.py(v) + 4, number(v));
  }
  out += fmt::format(
      "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity "
      "(FLOP/byte)</text>\n<text class=\"axis-label\" x=\"12\" y=\"{}\" transform=\"rotate(-90 12 "
      "{})\" "
      "text-anchor=\"middle\">TFLOP/s</text>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 6, kHeight / 2, kHeight / 2);
  return out;
}

// The roof: intensity x bandwidth up to the ridge point, the peak after it.
std::string roof(const Plot& p, double peak, double bandwidth, double ridge) {
  const double x0 = std::pow(10.0, p.x.lo_exp);
  const double x1 = std::pow(10.0, p.x.hi_exp);
  return fmt::format(
      "<polyline class=\"roof\" fill=\"none\" stroke=\"#333\" stroke-width=\"2\" "
      "points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"/>\n",
      p.px(x0), p.py(x0 * bandwidth / 1e3), p.px(ridge), p.py(peak), p.px(x1), p.py(peak));
}

std::string dot(const Plot& p, const OpFlops& op) {
  const bool memory = op.bound == "memory_bound";
  std::string label =
      op.name + " (" + op.dtype +
      "): " + fmt::format("{:.1f} FLOP/byte, {:.3g} TFLOP/s", *op.intensity, op.achieved_tflops) +
      (op.bound == "unknown" ? "" : ", " + op.bound);
  return fmt::format(
      "<circle class=\"op\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"><title>{}</title>"
      "</circle>\n",
      p.px(*op.intensity), p.py(op.achieved_tflops), memory ? "#e45756" : "#4c78a8", escape(label));
}

std::vector<const OpFlops*> drawable(const ComputeEfficiencyResult& e, int top) {
  std::vector<const OpFlops*> ops;
  for (const OpFlops& op : e.ops) {
    if (ops.size() >= static_cast<std::size_t>(std::max(top, 1))) break;
    if (op.intensity && *op.intensity > 0 && op.achieved_tflops > 0) ops.push_back(&op);
  }
  return ops;
}

std::string chart(const ComputeEfficiencyResult& e, const std::vector<const OpFlops*>& ops) {
  const double peak = e.peak_tflops;
  const double bandwidth = e.peak_bandwidth_gbps;
  const double ridge = *e.ridge_point;
  double x_lo = ridge / 10;
  double x_hi = ridge * 10;
  double y_lo = peak / 1000;
  double y_hi = peak * 1.5;  // a rate above the datasheet peak (a wrong count) stays on the chart
  for (const OpFlops* op : ops) {
    x_lo = std::min(x_lo, *op->intensity);
    x_hi = std::max(x_hi, *op->intensity);
    y_lo = std::min(y_lo, op->achieved_tflops);
    y_hi = std::max(y_hi, op->achieved_tflops);
  }
  const LogAxis x(x_lo, x_hi);
  // The roof at the left edge must fit too.
  y_lo = std::min(y_lo, std::pow(10.0, x.lo_exp) * bandwidth / 1e3);
  const Plot p{x, LogAxis(y_lo, y_hi)};
  std::string out = fmt::format(
      "<svg class=\"chart roofline\" data-chart=\"roofline\" data-bars=\"{}\" viewBox=\"0 0 {} "
      "{}\" role=\"img\" aria-label=\"Roofline\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      ops.size(), kWidth, kHeight);
  out += axes(p) + roof(p, peak, bandwidth, ridge);
  for (const OpFlops* op : ops) out += dot(p, *op);
  return out + "</svg>\n";
}

}  // namespace

std::string roofline_section(const ComputeEfficiencyResult& e, int top) {
  if (!e.applicable) return {};
  std::string out = "<h3>Roofline</h3>\n";
  if (!e.ridge_point || e.peak_tflops <= 0 || e.peak_bandwidth_gbps <= 0) {
    const std::string why =
        e.device_name.empty()
            ? "the trace has no GPU activity, so there is no device peak"
            : "no datasheet peak and memory bandwidth for " + e.device_name + " in " + e.dtype;
    return out + "<p class=\"note\">No roofline: " + escape(why) + ".</p>\n";
  }
  const std::vector<const OpFlops*> ops = drawable(e, top);
  out += fmt::format(
      "<p class=\"figures\">{} {}: peak {:.1f} TFLOP/s, {:.0f} GB/s, ridge point {:.1f} "
      "FLOP/byte · red: memory-bound, blue: compute-bound ({})</p>\n",
      escape(e.device_name), escape(e.dtype), e.peak_tflops, e.peak_bandwidth_gbps, *e.ridge_point,
      escape(e.peak_source));
  if (ops.empty()) return out + "<p class=\"note\">No op has bytes from its shapes to place.</p>\n";
  return out + chart(e, ops);
}

}  // namespace stepscope::render::html
