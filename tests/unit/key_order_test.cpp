// A remembered key matches exactly the bytes `"key":` and nothing else: not a longer key, not a
// key with space before its colon, not past what it was told to remember.
#include "importers/kineto/key_order.h"

#include <gtest/gtest.h>

#include <string>

namespace stepscope::kineto {
namespace {

// `text` with 32 readable bytes after it, as match() needs.
std::string padded(const std::string& text) { return text + std::string(32, ' '); }

TEST(QuotedKey, MatchesTheKeyWithItsQuotesAndColonOnly) {
  QuotedKey key;
  ASSERT_TRUE(key.assign("External id", false));
  EXPECT_EQ(key.match(padded(R"("External id": 7)").data()), 14U);
  EXPECT_EQ(key.match(padded(R"("External id" : 7)").data()), 0U);
  EXPECT_EQ(key.match(padded(R"("External ids": 7)").data()), 0U);
  EXPECT_EQ(key.match(padded(R"("External i": 7)").data()), 0U);
  EXPECT_EQ(key.match(padded(R"("external id": 7)").data()), 0U);
  EXPECT_EQ(key.match(padded(R"( "External id": 7)").data()), 0U);
}

TEST(QuotedKey, KeysOfEveryLengthUpToItsWords) {
  for (std::size_t size = 0; size + 3 <= QuotedKey::kMaxBytes; ++size) {
    const std::string name(size, 'k');
    QuotedKey key;
    ASSERT_TRUE(key.assign(name, false)) << size;
    EXPECT_EQ(key.match(padded("\"" + name + "\":").data()), size + 3) << size;
    EXPECT_EQ(key.match(padded("\"" + name + "k\":").data()), 0U) << size;
    if (size > 0) {
      std::string other = name;
      other.back() = 'j';  // the last byte of the last word it covers
      EXPECT_EQ(key.match(padded("\"" + other + "\":").data()), 0U) << size;
    }
  }
  QuotedKey too_long;
  EXPECT_FALSE(too_long.assign(std::string(QuotedKey::kMaxBytes - 2, 'k'), false));
  EXPECT_FALSE(too_long.assign(std::string(QuotedKey::kMaxBytes - 3, 'k'), true));  // its space
  EXPECT_EQ(too_long.match(padded("\"\":").data()), 0U);  // empty: matches nothing
}

TEST(QuotedKey, TheSpaceAfterTheColonWhenTheWriterPutOne) {
  QuotedKey key;
  ASSERT_TRUE(key.assign("ts", true));
  EXPECT_EQ(key.match(padded(R"("ts": 12)").data()), 6U);
  EXPECT_EQ(key.match(padded(R"("ts":  12)").data()), 6U);  // the second space left to the reader
  EXPECT_EQ(key.match(padded(R"("ts":12)").data()), 0U);
  EXPECT_EQ(key.match(padded("\"ts\":\n12").data()), 0U);
}

TEST(QuotedKey, RefusesWhatTheGeneralPathMustJudge) {
  QuotedKey key;
  EXPECT_FALSE(key.assign("caf\xc3\xa9", false));  // not ASCII
  EXPECT_FALSE(key.assign("a\"b", false));
  EXPECT_FALSE(key.assign("a\\b", false));
  EXPECT_FALSE(key.assign(std::string("a\nb"), false));
  EXPECT_EQ(key.match(padded("\"a\nb\":").data()), 0U);
  QuotedKey empty;
  EXPECT_EQ(empty.match(padded("").data()), 0U);
}

enum class Meaning : std::uint8_t { kNone, kFirst, kSecond };

TEST(KeyOrder, PredictsEachPositionFromTheLastKeySeenThere) {
  KeyOrder<Meaning> order;
  Meaning meaning = Meaning::kNone;
  EXPECT_EQ(order.match(0, padded(R"("ph":)").data(), meaning), 0U);
  order.remember(0, "ph", Meaning::kFirst, false);
  order.remember(1, "cat", Meaning::kSecond, false);
  EXPECT_EQ(order.match(0, padded(R"("ph": "X")").data(), meaning), 5U);
  EXPECT_EQ(meaning, Meaning::kFirst);
  EXPECT_EQ(order.match(1, padded(R"("cat": "X")").data(), meaning), 6U);
  EXPECT_EQ(meaning, Meaning::kSecond);
  meaning = Meaning::kNone;
  EXPECT_EQ(order.match(1, padded(R"("ph": "X")").data(), meaning), 0U);
  EXPECT_EQ(meaning, Meaning::kNone);               // untouched on a miss
  order.remember(1, "ph", Meaning::kFirst, false);  // the order changed: the latest key counts
  EXPECT_EQ(order.match(1, padded(R"("ph": "X")").data(), meaning), 5U);
  EXPECT_EQ(order.match(KeyOrder<Meaning>::kPositions, padded(R"("ph":)").data(), meaning), 0U);
  order.remember(KeyOrder<Meaning>::kPositions, "ph", Meaning::kFirst, false);  // beyond: ignored
}

}  // namespace
}  // namespace stepscope::kineto
