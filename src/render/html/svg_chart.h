// Charts as inline SVG, drawn on the server side: no script, no network, readable offline.
// Each chart is an <svg class="chart" data-chart="ID" data-bars="N"> whose bars are
// <rect class="bar">, so tests (and a browser) can count what was drawn. Every label is escaped.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace stepscope::render::html {

struct Series {
  std::string name;
  std::string color;  // CSS colour
  std::vector<double> values;
};

// Vertical bars per category, stacked when there are several series (side by side when
// `grouped`); y in `unit`.
struct BarChart {
  std::string id;
  std::string title;
  std::vector<std::string> categories;
  std::vector<Series> series;
  std::string unit;
  std::string x_label;
  bool grouped = false;
};
std::string draw(const BarChart& chart);

// Horizontal bars for ranked names (top kernels, top ops), largest first. A long name is cut in
// the middle (its distinguishing tail stays) with the full name as the label's tooltip.
struct RankedBars {
  std::string id;
  std::string title;
  std::vector<std::pair<std::string, double>> rows;
  std::string unit;
  std::string color;
};
std::string draw(const RankedBars& chart);

// A vertical line across the plot at `x` (a step boundary), its label as a tooltip.
struct Marker {
  double x = 0;
  std::string label;
};

// Lines over x (drawn as steps when `steps`): memory over time.
struct LineChart {
  std::string id;
  std::string title;
  std::vector<double> x;
  std::vector<Series> series;
  std::string x_unit;
  std::string y_unit;
  bool steps = true;
  std::vector<Marker> markers;
};
std::string draw(const LineChart& chart);

// One strip per row (a device): each bin shaded by its busy share, 0 pale to 1 dark.
struct BusyStrips {
  std::string id;
  std::string title;
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  double span_ms = 0;
};
std::string draw(const BusyStrips& chart);

// The legend of a chart's series, as HTML.
std::string legend(const std::vector<Series>& series);

}  // namespace stepscope::render::html
