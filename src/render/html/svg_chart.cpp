#include "render/html/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/html/html_escape.h"
#include "render/name_cut.h"
#include "render/nice_ticks.h"

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
// Ranked bar labels: longer names are cut in the middle, the full name is in a tooltip.
constexpr std::size_t kMaxLabelCharacters = 46;

using render::format_tick;
using render::Ticks;
using render::ticks_from_zero;

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
std::string y_axis(const Ticks& ticks, std::string_view unit) {
  const double top = ticks.values.back();
  std::string out;
  for (double v : ticks.values) {
    const double y = kTop + kPlotHeight * (1 - v / top);
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        kLeft, kWidth - kRight, y, y, kLeft - 6, y + 4, format_tick(v, ticks));
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
  const Ticks ticks = ticks_from_zero(stacked_max(chart));
  const double top = ticks.values.back();
  const double band = n == 0 ? kPlotWidth : kPlotWidth / static_cast<double>(n);
  const std::size_t label_every = std::max<std::size_t>(1, (n + kMaxXLabels - 1) / kMaxXLabels);
  const double group_width = std::min(band * 0.7, chart.grouped ? 120.0 : 64.0);
  const double bar_width =
      chart.grouped
          ? group_width / static_cast<double>(std::max<std::size_t>(1, chart.series.size()))
          : group_width;
  for (std::size_t c = 0; c < n; ++c) {
    double base = 0;
    // The bars and their label share the band's centre, however wide the band is.
    const double centre = kLeft + band * (static_cast<double>(c) + 0.5);
    const double x = centre - group_width / 2;
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
          "<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", centre,
          kTop + kPlotHeight + 16, escape(chart.categories[c]));
    }
  }
  std::string out = open_svg(chart.id, chart.title, bars);
  out += y_axis(ticks, chart.unit);
  out += body;
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  kLeft + kPlotWidth / 2, kHeight - 6, escape(chart.x_label));
  out += "</svg>\n";
  if (chart.series.size() > 1) out += legend(chart.series);
  return out;
}

std::string draw(const RankedBars& given) {
  // A chart of more bars is not read; the table beside it lists the rows.
  constexpr std::size_t kMaxBars = 50;
  RankedBars bounded;
  const RankedBars& chart = given.rows.size() <= kMaxBars ? given : bounded;
  if (given.rows.size() > kMaxBars) {
    bounded = RankedBars{given.id,
                         given.title,
                         {given.rows.begin(), given.rows.begin() + kMaxBars},
                         given.unit,
                         given.color};
  }
  constexpr double kRow = 22;
  constexpr double kLabelWidth = 330;
  // Below the bars: the tick values, then the unit on a line of its own.
  const double axis_y = kTop + kRow * static_cast<double>(chart.rows.size()) + 2;
  const double height = axis_y + 40;
  double max = 0;
  for (const auto& [name, value] : chart.rows) max = std::max(max, value);
  const Ticks ticks = ticks_from_zero(max);
  const double top = ticks.values.back();
  const double plot = kWidth - kLabelWidth - kRight - 40;
  std::string out = open_svg(chart.id, chart.title, chart.rows.size(), height);
  for (double v : ticks.values) {
    const double x = kLabelWidth + plot * v / top;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{:.1f}\"/>"
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
        x, x, kTop, axis_y, x, axis_y + 14, format_tick(v, ticks));
  }
  out += fmt::format(
      "<text class=\"unit\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
      kLabelWidth + plot / 2, axis_y + 32, escape(chart.unit));
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    const auto& [name, value] = chart.rows[r];
    const double y = kTop + kRow * static_cast<double>(r);
    out += fmt::format(
        "<text class=\"label\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\"><title>{}</title>{}"
        "</text><rect class=\"bar\" x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" "
        "fill=\"{}\"><title>{}: {} {}</title></rect>"
        "<text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        kLabelWidth - 6, y + 15, escape_name(name),
        escape(render::shorten_name(name, kMaxLabelCharacters)), kLabelWidth, y + 3,
        std::max(0.5, plot * std::max(0.0, value) / top), kRow - 6, escape(chart.color),
        escape_name(name), number(value), escape(chart.unit),
        kLabelWidth + plot * std::max(0.0, value) / top + 4, y + 15, number(value));
  }
  out += "</svg>\n";
  return out;
}

std::string draw(const LineChart& chart) {
  double x_max = 0;
  double x_min = chart.x.empty() ? 0 : chart.x.front();
  for (double x : chart.x) x_max = std::max(x_max, x);
  // The axis spans the markers too: a step that starts before the first sample still shows.
  for (const Marker& m : chart.markers) {
    x_min = std::min(x_min, m.x);
    x_max = std::max(x_max, m.x);
  }
  double y_max = 0;
  for (const Series& s : chart.series) {
    for (double v : s.values) y_max = std::max(y_max, v);
  }
  const Ticks y_ticks = ticks_from_zero(y_max);
  const double top = y_ticks.values.back();
  const double x_span = std::max(x_max - x_min, 1e-9);
  auto x_of = [&](double x) { return kLeft + kPlotWidth * (x - x_min) / x_span; };
  std::string out = open_svg(chart.id, chart.title, 0);
  out += y_axis(y_ticks, chart.y_unit);
  // Round times (2000, 4000 ms), not the first sample's time plus multiples of a step.
  const Ticks x_ticks = render::ticks_within(x_min, x_max);
  for (double v : x_ticks.values) {
    out +=
        fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                    x_of(v), kTop + kPlotHeight + 16, format_tick(v, x_ticks));
  }
  out +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  kLeft + kPlotWidth / 2, kHeight - 6, escape(chart.x_unit));
  for (const Marker& m : chart.markers) {
    out += fmt::format(
        "<line class=\"marker\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\">"
        "<title>{3}</title></line>\n",
        x_of(m.x), kTop, kTop + kPlotHeight, escape(m.label));
  }
  for (const Series& s : chart.series) {
    std::string points;
    double previous_y = 0;
    for (std::size_t i = 0; i < chart.x.size() && i < s.values.size(); ++i) {
      const double x = x_of(chart.x[i]);
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
  const double axis_y = kTop + kRow * static_cast<double>(chart.rows.size());
  const double height = axis_y + 40;
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
  const Ticks ticks = render::ticks_within(0, chart.span_ms);
  for (double v : ticks.values) {
    const double x = kLeft + kPlotWidth * v / std::max(chart.span_ms, 1e-9);
    out += fmt::format(
        "<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x,
        axis_y + 14, format_tick(v, ticks));
  }
  out += fmt::format(
      "<text class=\"axis-label\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\">time in the "
      "window (ms)</text>\n",
      kLeft + kPlotWidth / 2, axis_y + 32);
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
