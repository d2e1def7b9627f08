#include <gtest/gtest.h>

#include "importers/kineto/decimal.h"

namespace stepscope::kineto {
namespace {

TEST(MicrosecondsLiteral, ExactNanosecondsWithoutFloatingPoint) {
  EXPECT_EQ(microseconds_literal_to_ns("12"), 12000);
  EXPECT_EQ(microseconds_literal_to_ns("12.5"), 12500);
  EXPECT_EQ(microseconds_literal_to_ns("12.345"), 12345);
  EXPECT_EQ(microseconds_literal_to_ns("12.0"), 12000);
  EXPECT_EQ(microseconds_literal_to_ns("-3.5"), -3500);
  EXPECT_EQ(microseconds_literal_to_ns("0"), 0);
  // An epoch-scale timestamp that a double cannot hold to the nanosecond.
  EXPECT_EQ(microseconds_literal_to_ns("1712173898123456.789"), 1712173898123456789LL);
}

TEST(MicrosecondsLiteral, RoundsBeyondNanosecondsToNearestEven) {
  EXPECT_EQ(microseconds_literal_to_ns("1.0004"), 1000);
  EXPECT_EQ(microseconds_literal_to_ns("1.0006"), 1001);
  EXPECT_EQ(microseconds_literal_to_ns("1.0005"), 1000);  // tie, even
  EXPECT_EQ(microseconds_literal_to_ns("1.0015"), 1002);  // tie, even
  EXPECT_EQ(microseconds_literal_to_ns("1.00050001"), 1001);
}

TEST(MicrosecondsLiteral, Exponents) {
  EXPECT_EQ(microseconds_literal_to_ns("1.5e3"), 1500000);
  EXPECT_EQ(microseconds_literal_to_ns("15E-1"), 1500);
  EXPECT_EQ(microseconds_literal_to_ns("1e-9"), 0);
  EXPECT_EQ(microseconds_literal_to_ns("1e-99999"), 0);
}

TEST(MicrosecondsLiteral, RefusesWhatIsNotANumberOrDoesNotFit) {
  EXPECT_FALSE(microseconds_literal_to_ns(""));
  EXPECT_FALSE(microseconds_literal_to_ns("abc"));
  EXPECT_FALSE(microseconds_literal_to_ns("1."));
  EXPECT_FALSE(microseconds_literal_to_ns("01"));
  EXPECT_FALSE(microseconds_literal_to_ns("1e"));
  EXPECT_FALSE(microseconds_literal_to_ns("9223372036854776"));  // * 1000 overflows int64
  EXPECT_FALSE(microseconds_literal_to_ns(std::string(400, '9')));
  EXPECT_FALSE(microseconds_literal_to_ns("1e400"));
}

TEST(MicrosecondsLiteral, IntegerLiteralDetection) {
  EXPECT_TRUE(is_integer_literal("123"));
  EXPECT_FALSE(is_integer_literal("123.0"));
  EXPECT_FALSE(is_integer_literal("1e3"));
  // Every length around the two eight-byte words, with the mark in every position.
  for (std::size_t length = 1; length <= 20; ++length) {
    const std::string digits(length, '7');
    EXPECT_TRUE(is_integer_literal(digits)) << digits;
    EXPECT_TRUE(is_integer_literal("-" + digits)) << digits;
    for (std::size_t at = 1; at < length; ++at) {
      for (const char mark : {'.', 'e', 'E'}) {
        std::string literal = digits;
        literal[at] = mark;
        EXPECT_FALSE(is_integer_literal(literal)) << literal;
      }
    }
  }
  EXPECT_TRUE(is_integer_literal("1661203462605650"));
  EXPECT_FALSE(is_integer_literal("1661203462605650.5"));
  EXPECT_TRUE(is_integer_literal("0"));
  EXPECT_TRUE(is_integer_literal("9876543210"));
}

}  // namespace
}  // namespace stepscope::kineto

namespace stepscope::kineto {
namespace {

TEST(MicrosecondsLiteral, LongFractionsTakeTheExactPath) {
  // Found by fuzz_kineto_json: the fast path overflowed on many decimals.
  EXPECT_EQ(microseconds_literal_to_ns("9999999.99999999999999999999999999"), 10000000000LL);
  EXPECT_EQ(microseconds_literal_to_ns("1.0001"), 1000);
}

}  // namespace
}  // namespace stepscope::kineto
