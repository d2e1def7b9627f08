#include "trace/flat_id_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace stepscope {
namespace {

IdRange range_of(const std::vector<std::int64_t>& ids) {
  IdRange range;
  for (const std::int64_t id : ids) range.add(id);
  return range;
}

// Inserts every id (index = position), then checks each against a std::map doing the same.
void expect_matches_reference(FlatIdMap& map, const std::vector<std::int64_t>& ids,
                              const std::vector<std::int64_t>& absent) {
  std::map<std::int64_t, EventIndex> reference;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const auto index = static_cast<EventIndex>(k);
    const EventIndex stored = map.find_or_insert(ids[k], index);
    const EventIndex expected = reference.emplace(ids[k], index).first->second;
    ASSERT_EQ(stored, expected) << "id " << ids[k];
  }
  for (const auto& [id, index] : reference) EXPECT_EQ(map.find(id), index) << "id " << id;
  for (const std::int64_t id : absent) EXPECT_EQ(map.find(id), kNoEvent) << "id " << id;
}

TEST(FlatIdMap, CounterIdsTakeTheArrayAndMatchAReferenceMap) {
  std::vector<std::int64_t> ids;
  for (std::int64_t id = 1000; id < 3000; id += 2) ids.push_back(id);
  ids.push_back(1000);  // a repeat keeps the first index
  FlatIdMap map(range_of(ids));
  EXPECT_TRUE(map.is_array());
  expect_matches_reference(map, ids, {0, 999, 1001, 2999, 3000, 1 << 30});
}

TEST(FlatIdMap, SparseIdsTakeTheHashTable) {
  std::mt19937_64 random(7);
  std::vector<std::int64_t> ids;
  ids.reserve(5001);
  for (int k = 0; k < 5000; ++k) ids.push_back(static_cast<std::int64_t>(random() >> 2));
  ids.push_back(ids[10]);
  FlatIdMap map(range_of(ids));
  EXPECT_FALSE(map.is_array());
  expect_matches_reference(map, ids, {0, 1, 2});
}

TEST(FlatIdMap, StorageReturnedIsTheStoredIndex) {
  for (const bool dense : {true, false}) {
    const std::vector<std::int64_t> ids =
        dense ? std::vector<std::int64_t>{5, 6, 7} : std::vector<std::int64_t>{5, 1 << 20, 1 << 30};
    FlatIdMap map(range_of(ids));
    EXPECT_EQ(map.is_array(), dense);
    map.find_or_insert(ids[1], 1) = 42;  // the linker overwrites with a better event
    EXPECT_EQ(map.find(ids[1]), 42);
    EXPECT_EQ(map.find_or_insert(ids[1], 3), 42);
  }
}

// A caller whose range left an id out still gets a correct map: the array turns into a table.
TEST(FlatIdMap, AnIdOutsideTheDeclaredRangeIsStillStored) {
  IdRange range;
  for (std::int64_t id = 10; id < 20; ++id) range.add(id);
  FlatIdMap map(range);
  ASSERT_TRUE(map.is_array());
  std::vector<std::int64_t> ids;
  for (std::int64_t id = 10; id < 20; ++id) ids.push_back(id);
  ids.push_back(1'000'000'000'000);
  ids.push_back(0);
  expect_matches_reference(map, ids, {9, 20, 999});
  EXPECT_FALSE(map.is_array());
}

TEST(FlatIdMap, AnEmptyMapFindsNothing) {
  const FlatIdMap map;
  EXPECT_EQ(map.find(0), kNoEvent);
  EXPECT_EQ(map.find(12345), kNoEvent);
}

}  // namespace
}  // namespace stepscope
