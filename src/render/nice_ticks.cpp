#include "render/nice_ticks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace stepscope::render {

namespace {

int decimals_for(double step) {
  // 0.05 needs 2 decimals, 0.2 one, 5 none.
  return std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
}

}  // namespace

double nice_step(double span, std::size_t target) {
  if (!(span > 0) || !std::isfinite(span)) return 1;
  const double rough = span / static_cast<double>(std::max<std::size_t>(1, target));
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  for (double multiple : {1.0, 2.0, 5.0}) {
    if (multiple * power >= rough * (1 - 1e-9)) return multiple * power;
  }
  return 10 * power;
}

Ticks ticks_from_zero(double max, std::size_t target) {
  Ticks ticks;
  if (!(max > 0) || !std::isfinite(max)) {
    ticks.values = {0, 1};
    return ticks;
  }
  ticks.step = nice_step(max, target);
  ticks.decimals = decimals_for(ticks.step);
  // Multiples computed as i * step, not by adding steps, so that 0.1 + 0.2 never shows.
  const auto count = static_cast<std::size_t>(std::ceil(max / ticks.step - 1e-9));
  for (std::size_t i = 0; i <= std::max<std::size_t>(1, count); ++i) {
    ticks.values.push_back(static_cast<double>(i) * ticks.step);
  }
  return ticks;
}

Ticks ticks_within(double lo, double hi, std::size_t target) {
  Ticks ticks;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
    ticks.values = {std::isfinite(lo) ? lo : 0};
    ticks.decimals = 0;
    return ticks;
  }
  ticks.step = nice_step(hi - lo, target);
  ticks.decimals = decimals_for(ticks.step);
  const double first = std::ceil(lo / ticks.step - 1e-9);
  const double last = std::floor(hi / ticks.step + 1e-9);
  for (double i = first; i <= last; ++i) ticks.values.push_back(i * ticks.step);
  return ticks;
}

std::string format_tick(double value, const Ticks& ticks) {
  // A multiple computed as 0 may come out as -1e-17: 0 is printed plainly.
  if (std::fabs(value) < ticks.step * 1e-6) return "0";
  return fmt::format("{:.{}f}", value, ticks.decimals);
}

}  // namespace stepscope::render
