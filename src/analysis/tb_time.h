// tb_plugin's time arithmetic (docs/metrics/00-conventions-for-every-figure.md §0.2): it keeps `ts`
// and `dur` as Python floats in microseconds and computes `end = ts + dur` in float64. At
// epoch-scale timestamps a double only resolves 0.25 µs, so its figures are quantized; compat-tb
// reproduces that here.
#pragma once

#include <cstdint>

#include "stepscope/intervals.h"

namespace stepscope::tb {

// The double nearest to `ns / 1000` µs, as Python's float() of the decimal literal gives it.
[[nodiscard]] double microseconds_as_double(std::int64_t ns);
// A double number of µs back in integer ns (exact for the 0.25 µs grid of epoch timestamps).
[[nodiscard]] std::int64_t double_microseconds_to_ns(double us);
// The interval tb_plugin sees for an event: [float(ts), float(ts) + float(dur)).
[[nodiscard]] Interval float_interval(std::int64_t start_ns, std::int64_t dur_ns);
// A single timestamp as tb_plugin holds it.
[[nodiscard]] std::int64_t float_instant(std::int64_t ns);

}  // namespace stepscope::tb
