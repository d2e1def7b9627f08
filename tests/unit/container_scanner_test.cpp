#include <gtest/gtest.h>

#include <random>
#include <string>

#include "importers/kineto/container_scanner.h"

namespace stepscope::kineto {
namespace {

std::size_t scan(const std::string& text) {
  std::string padded = text + std::string(64, ' ');
  return find_container_end(padded.data(), text.size());
}

TEST(ContainerScanner, FindsTheMatchingBracketOutsideStrings) {
  EXPECT_EQ(scan(R"({"a":1})"), 7U);
  EXPECT_EQ(scan(R"({"a":"}"}, {"b":2})"), 9U);
  EXPECT_EQ(scan(R"({"a":"\"}"})"), 11U);
  EXPECT_EQ(scan(R"({"a":"\\"} )"), 10U);
  EXPECT_EQ(scan(R"([[{"x":[1,2]}],3] tail)"), 17U);
  EXPECT_EQ(scan(R"({"a":[1,2)"), kContainerIncomplete);
  EXPECT_EQ(scan(R"({"a":"unterminated})"), kContainerIncomplete);
  EXPECT_EQ(scan("{]}"), 2U);  // brackets are not type-checked here; simdjson checks the event
}

TEST(ContainerScanner, LongStringsAndBackslashRunsAcrossBlockBoundaries) {
  for (std::size_t run = 0; run < 140; ++run) {
    const std::string backslashes(run, '\\');
    // An even run leaves the quote unescaped; an odd run escapes it.
    const std::string text = "{\"k\":\"" + std::string(run % 61, 'x') + backslashes +
                             (run % 2 == 0 ? "\"" : "\"\"") + "}";
    EXPECT_EQ(scan(text), text.size()) << "run " << run;
  }
}

TEST(ContainerScanner, AgreesWithTheScalarReferenceOnRandomInput) {
  std::mt19937 random(12345);
  // \xc3 is not ASCII: the two scanners must agree on that too, and the padding holds it so
  // that a byte past the end would show.
  const std::string alphabet = "{}[]\"\\ax:,\xc3";
  for (int round = 0; round < 20000; ++round) {
    std::string text = "{";
    const int length = static_cast<int>(random() % 300);
    for (int i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    std::string padded = text + std::string(64, '\xc3');
    bool fast_ascii = false;
    bool scalar_ascii = false;
    const std::size_t fast = find_container_end(padded.data(), text.size(), fast_ascii);
    ASSERT_EQ(fast, find_container_end_scalar(padded.data(), text.size(), scalar_ascii)) << text;
    if (fast <= text.size()) {
      ASSERT_EQ(fast_ascii, scalar_ascii) << text;
    }
  }
}

// Whether the value is ASCII counts its own bytes only: not what follows it in the buffer.
TEST(ContainerScanner, TellsWhetherTheValueIsAscii) {
  const auto ascii_of = [](const std::string& text, std::size_t end) {
    std::string padded = text + std::string(64, ' ');
    bool ascii = false;
    bool scalar_ascii = false;
    EXPECT_EQ(find_container_end(padded.data(), text.size(), ascii), end) << text;
    EXPECT_EQ(find_container_end_scalar(padded.data(), text.size(), scalar_ascii), end) << text;
    EXPECT_EQ(ascii, scalar_ascii) << text;
    return ascii;
  };
  EXPECT_TRUE(ascii_of("{\"a\":\"b\"} {\"c\":\"\xc3\xa9\"}", 9));
  EXPECT_FALSE(ascii_of("{\"a\":\"\xc3\xa9\"}", 10));
  // Past the first 64-byte block, and a non-ASCII byte escaped by a backslash.
  EXPECT_FALSE(ascii_of("{\"a\":\"" + std::string(70, 'x') + "\xe2\x82\xac\"}", 81));
  EXPECT_FALSE(ascii_of("{\"a\":\"\\\xc3\xa9\"}", 11));
  EXPECT_TRUE(ascii_of("{\"a\":\"" + std::string(120, 'x') + "\"}" + "\xc3", 128));
}

}  // namespace
}  // namespace stepscope::kineto
