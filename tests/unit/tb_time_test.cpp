// tb_plugin's float64 µs arithmetic (docs/metrics/00-conventions-for-every-figure.md §0.2), which
// compat-tb reproduces.
#include <gtest/gtest.h>

#include "analysis/tb_time.h"

namespace stepscope {
namespace {

TEST(TbTime, SmallTimestampsStayExact) {
  const Interval span = tb::float_interval(12'345'678, 1'344);
  EXPECT_EQ(span.start, 12'345'678);
  EXPECT_EQ(span.end, 12'347'022);
}

TEST(TbTime, EpochTimestampsQuantizeToAQuarterMicrosecond) {
  // At 1.7e15 µs a double resolves 0.25 µs: .123 rounds down to .0, and 1.344 µs of duration
  // becomes 1.25 µs once added to the start.
  constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;
  const Interval span = tb::float_interval(kEpochNs + 123, 1'344);
  EXPECT_EQ(span.start, kEpochNs);
  EXPECT_EQ(span.length(), 1'250);
  EXPECT_EQ(tb::float_instant(kEpochNs + 130), kEpochNs + 250);
}

TEST(TbTime, NegativeTimesRoundTrip) {
  EXPECT_DOUBLE_EQ(tb::microseconds_as_double(-1'500), -1.5);
  EXPECT_EQ(tb::double_microseconds_to_ns(-1.5), -1'500);
}

}  // namespace
}  // namespace stepscope
