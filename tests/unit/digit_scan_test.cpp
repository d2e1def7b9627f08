#include "importers/kineto/digit_scan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace stepscope::kineto {
namespace {

// Digits in the padding after `end`, so that a count or a value taken from past the end shows.
std::string padded(const std::string& text) { return text + std::string(64, '7'); }

TEST(DigitScan, CountsDigitsUpToTheFirstOtherByteAndNeverPastTheEnd) {
  const std::string text = "1661203462598738, \"dur\"";
  const std::string buffer = padded(text);
  EXPECT_EQ(leading_digits(buffer.data(), buffer.data() + text.size()), 16U);
  EXPECT_EQ(leading_digits(buffer.data() + 16, buffer.data() + text.size()), 0U);
  EXPECT_EQ(leading_digits(buffer.data(), buffer.data() + 5), 5U);  // the end cuts the run
  const std::string all_digits = padded("12345");
  EXPECT_EQ(leading_digits(all_digits.data(), all_digits.data() + 5), 5U);
  const std::string long_run = padded(std::string(40, '9'));
  EXPECT_EQ(leading_digits(long_run.data(), long_run.data() + 40), kDigitBlock);
}

TEST(DigitScan, BytesJustOutsideTheDigitsAreNotDigits) {
  // '/' and ':' sit either side of '0'-'9'; bytes above 0x7F must not wrap into the range.
  for (const char other : {'/', ':', ' ', '.', '-', 'e', '\0', '\x80', '\xb0', '\xff'}) {
    const std::string text = std::string("42") + other + "1";
    const std::string buffer = padded(text);
    EXPECT_EQ(leading_digits(buffer.data(), buffer.data() + text.size()), 2U)
        << static_cast<int>(static_cast<unsigned char>(other));
  }
}

TEST(DigitScan, ConvertsEveryLengthFromOneToSixteen) {
  const std::string sixteen = padded("9876543210123456");
  std::uint64_t expected = 0;
  for (std::size_t count = 1; count <= kDigitBlock; ++count) {
    expected = expected * 10 + static_cast<unsigned>(sixteen[count - 1] - '0');
    EXPECT_EQ(digits_value(sixteen.data(), count), expected) << count;
  }
  EXPECT_EQ(digits_value(padded("9999999999999999").data(), 16), 9999999999999999ULL);
  EXPECT_EQ(digits_value(padded("0000000000000000").data(), 16), 0U);
  EXPECT_EQ(digits_value(padded("0").data(), 1), 0U);
}

TEST(DigitScan, AgreesWithTheBytewiseReferenceOnRandomInput) {
  std::mt19937 random(2026);
  const std::string alphabet = "0123456789/:. -e\"\x80\xff";
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 40);
    for (int i = 0; i < length; ++i) {
      // Mostly digits, so that long runs occur.
      text.push_back(random() % 4 == 0 ? alphabet[random() % alphabet.size()]
                                       : static_cast<char>('0' + random() % 10));
    }
    const std::string buffer = padded(text);
    const char* begin = buffer.data();
    const char* end = begin + text.size();
    for (const char* from = begin; from <= end; from += 1 + (random() % 3)) {
      const std::size_t count = leading_digits(from, end);
      ASSERT_EQ(count, leading_digits_portable(from, end)) << text;
      if (count > 0) {
        ASSERT_EQ(digits_value(from, count), digits_value_portable(from, count)) << text;
      }
    }
  }
}

}  // namespace
}  // namespace stepscope::kineto
