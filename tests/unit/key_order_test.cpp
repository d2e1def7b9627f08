// A remembered key matches exactly the bytes it was read from (whitespace, quotes, colon and the
// space after it) and nothing else: not a longer key, not other whitespace, not past its end.
#include "importers/kineto/key_order.h"

#include <gtest/gtest.h>

#include <string>

namespace stepscope::kineto {
namespace {

// `text` with 32 readable bytes after it, as match() needs.
std::string padded(const std::string& text) { return text + std::string(32, '#'); }

TEST(KeyBytes, MatchesTheBytesItWasGivenOnly) {
  KeyBytes key;
  ASSERT_TRUE(key.assign("\n      \"External id\": "));
  EXPECT_EQ(key.match(padded("\n      \"External id\": 7").data()), 22U);
  EXPECT_EQ(key.match(padded("\n     \"External id\": 7").data()), 0U);
  EXPECT_EQ(key.match(padded("\n      \"External id\":7").data()), 0U);
  EXPECT_EQ(key.match(padded("\n      \"External ids\": 7").data()), 0U);
  EXPECT_EQ(key.match(padded("\n      \"external id\": 7").data()), 0U);
  ASSERT_TRUE(key.assign(R"("ts":)"));
  EXPECT_EQ(key.match(padded(R"("ts": 12)").data()), 5U);  // the space left to the reader
  EXPECT_EQ(key.match(padded(R"("tsx": 12)").data()), 0U);
}

TEST(KeyBytes, PatternsOfEveryLengthUpToItsWords) {
  for (std::size_t size = 1; size <= KeyBytes::kMaxBytes; ++size) {
    const std::string text(size, 'k');
    KeyBytes key;
    ASSERT_TRUE(key.assign(text)) << size;
    EXPECT_EQ(key.match(padded(text).data()), size) << size;
    std::string other = text;
    other.back() = 'j';  // the last byte it covers, in its last word
    EXPECT_EQ(key.match(padded(other).data()), 0U) << size;
    other = text;
    other.front() = 'j';
    EXPECT_EQ(key.match(padded(other).data()), 0U) << size;
  }
  KeyBytes too_long;
  EXPECT_FALSE(too_long.assign(std::string(KeyBytes::kMaxBytes + 1, 'k')));
  EXPECT_EQ(too_long.match(padded(std::string(KeyBytes::kMaxBytes + 1, 'k')).data()), 0U);
}

TEST(KeyBytes, RefusesWhatTheGeneralPathMustJudge) {
  KeyBytes key;
  EXPECT_FALSE(key.assign("\"caf\xc3\xa9\":"));  // not ASCII: judged by the reader every time
  EXPECT_EQ(key.match(padded("\"caf\xc3\xa9\":").data()), 0U);
  KeyBytes empty;
  EXPECT_FALSE(empty.assign(""));
  EXPECT_EQ(empty.match(padded("").data()), 0U);  // matches nothing, not everything
}

enum class Meaning : std::uint8_t { kNone, kFirst, kSecond };

TEST(KeyOrder, PredictsEachPositionFromTheLastKeyReadThere) {
  KeyOrder<Meaning> order;
  Meaning meaning = Meaning::kNone;
  EXPECT_EQ(order.match(0, padded(R"("ph": )").data(), meaning), 0U);
  order.remember(0, R"("ph": )", Meaning::kFirst);
  order.remember(1, R"( "cat": )", Meaning::kSecond);
  EXPECT_EQ(order.match(0, padded(R"("ph": "X")").data(), meaning), 6U);
  EXPECT_EQ(meaning, Meaning::kFirst);
  EXPECT_EQ(order.match(1, padded(R"( "cat": "X")").data(), meaning), 8U);
  EXPECT_EQ(meaning, Meaning::kSecond);
  meaning = Meaning::kNone;
  EXPECT_EQ(order.match(1, padded(R"("ph": "X")").data(), meaning), 0U);
  EXPECT_EQ(meaning, Meaning::kNone);               // untouched on a miss
  order.remember(1, R"("ph": )", Meaning::kFirst);  // the order changed: the latest key counts
  EXPECT_EQ(order.match(1, padded(R"("ph": "X")").data(), meaning), 6U);
  EXPECT_EQ(meaning, Meaning::kFirst);
  EXPECT_EQ(order.match(KeyOrder<Meaning>::kPositions, padded(R"("ph": )").data(), meaning), 0U);
  order.remember(KeyOrder<Meaning>::kPositions, R"("ph": )", Meaning::kFirst);  // ignored
  EXPECT_EQ(order.match(KeyOrder<Meaning>::kPositions, padded(R"("ph": )").data(), meaning), 0U);
  EXPECT_EQ(order.match(0, padded(R"("ph": "X")").data(), meaning), 6U);  // the others kept
  EXPECT_EQ(order.match(1, padded(R"("ph": "X")").data(), meaning), 6U);
}

}  // namespace
}  // namespace stepscope::kineto
