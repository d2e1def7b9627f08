// Axis ticks on round values: 1, 2 or 5 times a power of ten, printed with just the decimals
// their step needs, so that a chart reads "0 50 100 150" with its unit once on the axis.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace stepscope::render {

struct Ticks {
  std::vector<double> values;  // ascending, each a multiple of `step`
  double step = 1;
  int decimals = 0;  // enough to tell two neighbouring ticks apart, no more
};

// The round step that cuts `span` into about `target` intervals.
[[nodiscard]] double nice_step(double span, std::size_t target = 5);

// From 0 up to the first tick at or above `max` (a value axis: the top tick bounds the data).
[[nodiscard]] Ticks ticks_from_zero(double max, std::size_t target = 5);

// The round values inside [lo, hi] (a time axis that does not start at 0).
[[nodiscard]] Ticks ticks_within(double lo, double hi, std::size_t target = 5);

// "150", "0.25", "1.5": `value` with the ticks' decimals; never "-0".
[[nodiscard]] std::string format_tick(double value, const Ticks& ticks);

}  // namespace stepscope::render
