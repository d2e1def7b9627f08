#include <gtest/gtest.h>

#include <random>
#include <string>

#include "importers/kineto/byte_scan.h"

namespace stepscope::kineto {
namespace {

// The padding after `end` holds the very bytes each search looks for, so that an answer taken
// from past the end shows.
std::string padded(const std::string& text, char fill) { return text + std::string(64, fill); }

TEST(ByteScan, SkipsEveryKindOfJsonWhitespaceAndNothingElse) {
  const std::string text = " \n\r\t  \n        x";
  const std::string buffer = padded(text, 'y');
  const char* begin = buffer.data();
  EXPECT_EQ(skip_json_space(begin, begin + text.size()), begin + text.size() - 1);
  const std::string other = "\v\f x";  // vertical tab and form feed are not JSON whitespace
  EXPECT_EQ(skip_json_space(other.data(), other.data() + other.size()), other.data());
}

TEST(ByteScan, StopsAtTheEndEvenWhenThePaddingWouldAnswer) {
  const std::string spaces(37, ' ');
  const std::string after_spaces = padded(spaces, 'x');
  EXPECT_EQ(skip_json_space(after_spaces.data(), after_spaces.data() + spaces.size()),
            after_spaces.data() + spaces.size());
  const std::string letters(21, 'a');
  const std::string after_letters = padded(letters, '"');
  EXPECT_EQ(find_string_special(after_letters.data(), after_letters.data() + letters.size()),
            after_letters.data() + letters.size());
}

TEST(ByteScan, FindsQuotesBackslashesAndControlBytesButNotHighBytes) {
  for (const char special : {'"', '\\', '\n', '\x01', '\x1f'}) {
    const std::string text = std::string(19, 'a') + "\xc3\xa9\x80\xff" + special + "tail";
    const std::string buffer = padded(text, 'a');
    const char* found = find_string_special(buffer.data(), buffer.data() + text.size());
    EXPECT_EQ(found - buffer.data(), 23) << static_cast<int>(special);
  }
}

TEST(ByteScan, AgreesWithTheBytewiseReferenceOnRandomInput) {
  std::mt19937 random(2026);
  const std::string alphabet = std::string(" \n\r\t\"\\ax\x01\x1f\x20\x7f\x80\xff", 14);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 70);
    for (int i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    const std::string buffer = padded(text, alphabet[random() % alphabet.size()]);
    const char* begin = buffer.data();
    const char* end = begin + text.size();
    for (const char* from = begin; from <= end; from += 1 + (random() % 5)) {
      ASSERT_EQ(skip_json_space(from, end), skip_json_space_portable(from, end)) << text;
      ASSERT_EQ(find_string_special(from, end), find_string_special_portable(from, end)) << text;
    }
  }
}

}  // namespace
}  // namespace stepscope::kineto
