// Axis ticks land on 1-2-5 values and print with the decimals their step needs.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "render/nice_ticks.h"

namespace stepscope::render {
namespace {

std::vector<std::string> labels(const Ticks& ticks) {
  std::vector<std::string> out;
  for (double v : ticks.values) out.push_back(format_tick(v, ticks));
  return out;
}

TEST(NiceTicks, StepsAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(nice_step(131, 5), 50);
  EXPECT_DOUBLE_EQ(nice_step(100, 5), 20);
  EXPECT_DOUBLE_EQ(nice_step(7, 5), 2);
  EXPECT_DOUBLE_EQ(nice_step(0.9, 5), 0.2);
  EXPECT_DOUBLE_EQ(nice_step(0.03, 5), 0.01);
  EXPECT_DOUBLE_EQ(nice_step(4.0e6, 5), 1.0e6);
}

TEST(NiceTicks, FromZeroCoversTheMaximum) {
  EXPECT_EQ(labels(ticks_from_zero(131)), (std::vector<std::string>{"0", "50", "100", "150"}));
  EXPECT_EQ(labels(ticks_from_zero(0.3)),
            (std::vector<std::string>{"0", "0.1", "0.2", "0.3"}));  // never 0.30000000000000004
  EXPECT_EQ(labels(ticks_from_zero(3.15)), (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(labels(ticks_from_zero(0.012)),
            (std::vector<std::string>{"0", "0.005", "0.010", "0.015"}));
}

TEST(NiceTicks, EmptyOrBrokenRangesStillGiveAnAxis) {
  EXPECT_EQ(labels(ticks_from_zero(0)), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(ticks_from_zero(-5).values.size(), 2u);
  EXPECT_EQ(ticks_from_zero(std::numeric_limits<double>::quiet_NaN()).values.size(), 2u);
  EXPECT_EQ(ticks_within(5, 5).values.size(), 1u);
}

TEST(NiceTicks, WithinARangeThatDoesNotStartAtZero) {
  // A memory curve from 27.7 ms to 7100 ms: round times, not 27.7, 2028, 4028.
  EXPECT_EQ(labels(ticks_within(27.7, 7100)), (std::vector<std::string>{"2000", "4000", "6000"}));
  EXPECT_EQ(labels(ticks_within(-0.25, 0.25)),
            (std::vector<std::string>{"-0.2", "-0.1", "0", "0.1", "0.2"}));
}

}  // namespace
}  // namespace stepscope::render
