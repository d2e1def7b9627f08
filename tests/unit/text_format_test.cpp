#include "render/text_format.h"

#include "render/json_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace stepscope::render {
namespace {

TEST(TextFormat, DurationPicksItsUnitByMagnitude) {
  EXPECT_EQ(format_duration(1'500), "1.5 µs");
  EXPECT_EQ(format_duration(2'500'000), "2.500 ms");
  EXPECT_EQ(format_duration(12'000'000'000), "12.00 s");
  EXPECT_EQ(format_duration(-2'500'000), "-2.500 ms");
}

// A corrupt trace can carry any int64; the most negative one has no int64 magnitude.
TEST(TextFormat, DurationOfTheExtremeInt64sIsFormatted) {
  EXPECT_EQ(format_duration(std::numeric_limits<std::int64_t>::min()), "-9223372036.85 s");
  EXPECT_EQ(format_duration(std::numeric_limits<std::int64_t>::max()), "9223372036.85 s");
}

TEST(TextFormat, BytesAndPercent) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(std::int64_t{3} * 1024 * 1024), "3.00 MiB");
  EXPECT_EQ(format_percent(0.256), "25.6 %");
  EXPECT_EQ(format_percent(std::numeric_limits<double>::quiet_NaN()), "n/a");
}

// Counts read as counts ("300 count", not "300.000 count"); measured figures keep their decimals.
TEST(TextFormat, EvidenceValueIsWholeWhenItIsWhole) {
  EXPECT_EQ(format_evidence_value(300.0), "300");
  EXPECT_EQ(format_evidence_value(0.0), "0");
  EXPECT_EQ(format_evidence_value(12345.0), "12,345");
  EXPECT_EQ(format_evidence_value(-4.0), "-4");
  EXPECT_EQ(format_evidence_value(14.653), "14.653");
  EXPECT_EQ(format_evidence_value(16.5), "16.500");
  EXPECT_EQ(format_evidence_value(0.0004), "0.000");
}

// Beyond 2^53 not every whole number is a double, so a value there keeps the general form, as
// infinities and NaN do.
TEST(TextFormat, EvidenceValueBeyondExactWholesKeepsDecimals) {
  EXPECT_EQ(format_evidence_value(1e300).substr(0, 3), "100");
  EXPECT_NE(format_evidence_value(1e300).find('.'), std::string::npos);
  EXPECT_EQ(format_evidence_value(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_evidence_value(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace
}  // namespace stepscope::render

namespace stepscope::render {
namespace {

TEST(JsonMicroseconds, ExactWithUpToThreeDecimals) {
  JsonWriter json;
  json.begin_array();
  json.microseconds(1'500);
  json.microseconds(-2'000);
  json.microseconds(std::numeric_limits<std::int64_t>::min());
  json.end_array();
  EXPECT_EQ(json.text(), "[1.5,-2,-9223372036854775.808]");
}

}  // namespace
}  // namespace stepscope::render
