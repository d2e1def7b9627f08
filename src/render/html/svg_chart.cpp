#include "render/html/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/html/html_escape.h"

namespace stepscope::render::html {

namespace {

constexpr double kWidth = 760;
constexpr double kHeight = 260;
constexpr double kLeft = 64;
constexpr double kRight = 12;
constexpr double kTop = 24;
constexpr double kBottom = 44;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;
constexpr std::size_t kMaxXLabels = 16;

// Round tick values (1, 2 or 5 times a power of ten) from 0 to at least `max`.
std::vector<double> ticks(double max) {
  if (!(max > 0) || !std::isfinite(max)) return {0, 1};
  const double rough = max / 5;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= rough) break;
  }
  std::vector<double> out;
  for (double v = 0; v < max + step * 0.999; v += step) out.push_back(v);
  return out;
}

std::string number(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) >= 1000) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

std::string open_svg(std::string_view id, std::string_view title, std::size_t bars,
                     double height = kHeight) {
  return fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" data-bars=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\n",
      escape(id), bars, kWidth, height, escape(title));
}

// Horizontal grid lines with their values, and the unit at the top of the axis.
std::string y_axis(const std::vector<double>& tick_values, std::string_view unit) {
  const double top = tick_values.back();
  std::string out;
  for (double v : tick_values) {
    const double y = kTop + kPlotHeight * (1 - v / top);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kWidth - kRight, y, y, kLeft - 6, y + 4, number(v));
  }
  out += fmt::format("<text class=\"unit\" x=\"{}\" y=\"{}\" text-anchor=\"start\">{}</text>\n",
                     kLeft, kTop - 10, escape(unit));
  return out;
}

double stacked_max(const BarChart& chart) {
  double max = 0;
  for (std::size_t c = 0; c < chart.categories.size(); ++c) {
    double total = 0;
    for (const Series& s : chart.series) {
      if (c >= s.values.size() || s.values[c] <= 0) continue;
      total = chart.grouped ? std::max(total, s.values[c]) : total + s.values[c];
    }
    max = std::max(max, total);
  }
  return max;
}

}  // namespace

std::string draw(const BarChart& chart) {
  const std::size_t n = chart.categories.size();
  std::size_t bars = 0;
  std::string body;
  const std::vector<double> tick_values = ticks(stacked_max(chart));
  const double top = tick_values.back();
  const double band = n == 0 ? kPlotWidth : kPlotWidth / static_cast<double>(n);
  const std::size_t label_every = std::max<std::size_t>(1, (n + kMaxXLabels - 1) / kMaxXLabels);
  const double group_width = std::min(band * 0.7, chart.grouped ? 120.0 : 64.0);
  const double bar_width =
      chart.grouped
          ? group_width / static_cast<double>(std::max<std::size_t>(1, chart.series.size()))
          : group_width;
  for (std::size_t c = 0; c < n; ++c) {
    double base = 0;
    const double x = kLeft + band * static_cast<double>(c) + (band - group_width) / 2;
    for (std::size_t k = 0; k < chart.series.size(); ++k) {
      const Series& s = chart.series[k];
      const double v = c < s.values.size() ? std::max(0.0, s.values[c]) : 0.0;
      if (v <= 0) continue;
      const double bar_x = chart.grouped ? x + bar_width * static_cast<double>(k) : x;
      const double y = kTop + kPlotHeight * (1 - ((chart.grouped ? 0 : base) + v) / top);
      const double h = kPlotHeight * v / top;
      body += fmt::format(
          "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\"><title>{}{}: {} {}</title></rect>\n",
          bar_x, y, bar_width, h, escape(s.color), escape(chart.categories[c]),
          chart.series.size() > 1 ? " · " + escape(s.name) : "", number(v), escape(chart.unit));
      base += v;
      ++bars;
    }
    if (c % label_every == 0) {
      body += fmt::format(
          "<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
          x + band * 0.35, kTop + kPlotHeight + 16, escape(chart.categories[c]));
    }
  }
  std::string out = open_svg(chart.id, chart.title, bars);
  out += y_axis(tick_values, chart.unit);
  out += body;
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  kLeft + kPlotWidth / 2, kHeight - 6, escape(chart.x_label));
  out += "</svg>\n";
  if (chart.series.size() > 1) out += legend(chart.series);
  return out;
}

std::string draw(const RankedBars& chart) {
  constexpr double kRow = 22;
  constexpr double kLabelWidth = 300;
  const double height = kTop + kRow * static_cast<double>(chart.rows.size()) + 30;
  double max = 0;
  for (const auto& [name, value] : chart.rows) max = std::max(max, value);
  const std::vector<double> tick_values = ticks(max);
  const double top = tick_values.back();
  const double plot = kWidth - kLabelWidth - kRight - 60;
  std::string out = open_svg(chart.id, chart.title, chart.rows.size(), height);
  for (double v : tick_values) {
    const double x = kLabelWidth + plot * v / top;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
        x, x, kTop, height - 24, x, height - 10, number(v));
  }
  out += fmt::format("<text class=\"unit\" x=\"{}\" y=\"{:.1f}\">{}</text>\n",
                     kLabelWidth + plot + 8, height - 10, escape(chart.unit));
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    const auto& [name, value] = chart.rows[r];
    const double y = kTop + kRow * static_cast<double>(r);
    const std::string shown = name.size() > 48 ? name.substr(0, 45) + "..." : name;
    out += fmt::format(
        "<text class=\"label\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"bar\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
        "<title>{}: {} {}</title></rect>"
        "<text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        kLabelWidth - 6, y + 15, escape(shown), kLabelWidth, y + 3,
        std::max(0.5, plot * std::max(0.0, value) / top), kRow - 6, escape(chart.color),
        escape(name), number(value), escape(chart.unit),
        kLabelWidth + plot * std::max(0.0, value) / top + 4, y + 15, number(value));
  }
  out += "</svg>\n";
  return out;
}

std::string draw(const LineChart& chart) {
  double x_max = 0;
  double x_min = chart.x.empty() ? 0 : chart.x.front();
  for (double x : chart.x) x_max = std::max(x_max, x);
  double y_max = 0;
  for (const Series& s : chart.series) {
    for (double v : s.values) y_max = std::max(y_max, v);
  }
  const std::vector<double> tick_values = ticks(y_max);
  const double top = tick_values.back();
  const double x_span = std::max(x_max - x_min, 1e-9);
  std::string out = open_svg(chart.id, chart.title, 0);
  out += y_axis(tick_values, chart.y_unit);
  for (double v : ticks(x_span)) {
    if (v > x_span * 1.0001) break;
    const double x = kLeft + kPlotWidth * v / x_span;
    out +=
        fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                    x, kTop + kPlotHeight + 16, number(v + x_min));
  }
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  kLeft + kPlotWidth / 2, kHeight - 6, escape(chart.x_unit));
  for (const Series& s : chart.series) {
    std::string points;
    double previous_y = 0;
    for (std::size_t i = 0; i < chart.x.size() && i < s.values.size(); ++i) {
      const double x = kLeft + kPlotWidth * (chart.x[i] - x_min) / x_span;
      const double y = kTop + kPlotHeight * (1 - std::max(0.0, s.values[i]) / top);
      if (chart.steps && i > 0) points += fmt::format("{:.1f},{:.1f} ", x, previous_y);
      points += fmt::format("{:.1f},{:.1f} ", x, y);
      previous_y = y;
    }
    out += fmt::format(
        "<polyline class=\"line\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"1.5\" points=\"{}\"/>\n",
        escape(s.name), escape(s.color), points);
  }
  out += "</svg>\n";
  out += legend(chart.series);
  return out;
}

std::string draw(const BusyStrips& chart) {
  constexpr double kRow = 26;
  const double height = kTop + kRow * static_cast<double>(chart.rows.size()) + 30;
  std::size_t bars = 0;
  std::string body;
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    const auto& [label, bins] = chart.rows[r];
    const double y = kTop + kRow * static_cast<double>(r);
    body +=
        fmt::format("<text class=\"label\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                    kLeft - 6, y + 15, escape(label));
    const double width = kPlotWidth / static_cast<double>(std::max<std::size_t>(1, bins.size()));
    for (std::size_t b = 0; b < bins.size(); ++b) {
      const double share = std::clamp(bins[b], 0.0, 1.0);
      body += fmt::format(
          "<rect class=\"bar busy\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" "
          "fill-opacity=\"{:.2f}\"><title>{:.0f} % busy</title></rect>",
          kLeft + width * static_cast<double>(b), y + 2, width + 0.05, kRow - 6,
          0.08 + 0.92 * share, share * 100);
      ++bars;
    }
    body += "\n";
  }
  std::string out = open_svg(chart.id, chart.title, bars, height);
  out += body;
  for (double v : ticks(chart.span_ms)) {
    if (v > chart.span_ms * 1.0001) break;
    const double x = kLeft + kPlotWidth * v / std::max(chart.span_ms, 1e-9);
    out += fmt::format(
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x,
        height - 12, number(v));
  }
  out += fmt::format("<text class=\"unit\" x=\"{}\" y=\"{:.1f}\">ms</text>\n", kWidth - kRight - 14,
                     height - 12);
  out += "</svg>\n";
  return out;
}

std::string legend(const std::vector<Series>& series) {
  std::string out = "<div class=\"legend\">";
  for (const Series& s : series) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", escape(s.color),
                       escape(s.name));
  }
  return out + "</div>\n";
}

}  // namespace stepscope::render::html
