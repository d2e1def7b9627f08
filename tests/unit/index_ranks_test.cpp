// IndexRanks numbers its members in index order, across word boundaries and at the ends.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "analysis/index_ranks.h"

namespace stepscope {
namespace {

TEST(IndexRanks, EmptySetHasNoMembers) {
  IndexRanks ranks(1000);
  ranks.number();
  EXPECT_EQ(ranks.size(), 0U);
  EXPECT_FALSE(ranks.contains(0));
  EXPECT_FALSE(ranks.contains(999));
}

TEST(IndexRanks, NumbersMembersInIndexOrderWhateverTheInsertOrder) {
  IndexRanks ranks(200);
  for (const std::uint32_t i : {199U, 64U, 0U, 63U, 128U, 65U, 64U}) ranks.insert(i);
  ranks.number();
  EXPECT_EQ(ranks.size(), 6U);  // 64 inserted twice
  EXPECT_EQ(ranks.rank(0), 0U);
  EXPECT_EQ(ranks.rank(63), 1U);
  EXPECT_EQ(ranks.rank(64), 2U);
  EXPECT_EQ(ranks.rank(65), 3U);
  EXPECT_EQ(ranks.rank(128), 4U);
  EXPECT_EQ(ranks.rank(199), 5U);
  EXPECT_TRUE(ranks.contains(65));
  EXPECT_FALSE(ranks.contains(66));
}

TEST(IndexRanks, AgreesWithAnOrderedSet) {
  std::mt19937 random(7);
  constexpr std::uint32_t kUniverse = 10'000;
  std::uniform_int_distribution<std::uint32_t> pick(0, kUniverse - 1);
  IndexRanks ranks(kUniverse);
  std::set<std::uint32_t> members;
  for (int n = 0; n < 3000; ++n) {
    const std::uint32_t i = pick(random);
    ranks.insert(i);
    members.insert(i);
  }
  ranks.number();
  ASSERT_EQ(ranks.size(), members.size());
  std::uint32_t expected = 0;
  for (std::uint32_t i = 0; i < kUniverse; ++i) {
    ASSERT_EQ(ranks.contains(i), members.contains(i)) << i;
    if (members.contains(i)) {
      ASSERT_EQ(ranks.rank(i), expected) << i;
      ++expected;
    }
  }
}

}  // namespace
}  // namespace stepscope
