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
  const std::string alphabet = R"({}[]"\ax:,)";
  for (int round = 0; round < 20000; ++round) {
    std::string text = "{";
    const int length = static_cast<int>(random() % 300);
    for (int i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    std::string padded = text + std::string(64, ' ');
    ASSERT_EQ(find_container_end(padded.data(), text.size()),
              find_container_end_scalar(padded.data(), text.size()))
        << text;
  }
}

}  // namespace
}  // namespace stepscope::kineto
