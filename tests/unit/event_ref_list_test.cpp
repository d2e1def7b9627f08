// EventRefList (diagnosis/gain.h): events grouped by name in first-seen order, each step listed
// once whatever order events come in, and the most frequent names chosen as a stable sort would.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diagnosis/gain.h"

namespace stepscope {
namespace {

Step kept_step(std::int64_t number) {
  Step s;
  s.number = number;
  s.start_ns = number * 100;
  s.end_ns = number * 100 + 100;
  s.status = StepStatus::kKept;
  return s;
}

std::vector<std::string> names_of(const std::vector<EventRefs>& refs) {
  std::vector<std::string> names;
  names.reserve(refs.size());
  for (const EventRefs& r : refs) names.push_back(r.name);
  return names;
}

TEST(EventRefList, GroupsByNameInFirstSeenOrder) {
  EventRefList list;
  const Step one = kept_step(1);
  EXPECT_EQ(list.add("b", 150, 160, &one), 0U);
  EXPECT_EQ(list.add("a", 120, 130, &one), 1U);
  EXPECT_EQ(list.add("b", 110, 170, nullptr), 0U);
  ASSERT_EQ(list.size(), 2U);
  const EventRefs& b = list.all()[0];
  EXPECT_EQ(b.name, "b");
  EXPECT_EQ(b.count, 2);
  EXPECT_EQ(b.first_start_ns, 110);
  EXPECT_EQ(b.last_end_ns, 170);
  EXPECT_EQ(b.steps, std::vector<std::int64_t>{1});
}

TEST(EventRefList, ListsEachStepOnceWhenEventsComeOutOfOrder) {
  EventRefList list;
  const Step one = kept_step(1);
  const Step two = kept_step(2);
  const Step three = kept_step(3);
  for (const Step* step : {&one, &two, &one, &three, &two, &one, &three}) {
    list.add("k", step->start_ns, step->start_ns + 1, step);
  }
  list.add("other", 0, 1, &two);
  EXPECT_EQ(list.all()[0].steps, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(list.all()[0].count, 7);
  EXPECT_EQ(list.all()[1].steps, std::vector<std::int64_t>{2});
}

TEST(EventRefList, MostFrequentBreaksTiesInFirstSeenOrder) {
  EventRefList list;
  for (const char* name : {"x", "y", "z", "y", "w", "z", "v"}) list.add(name, 0, 1, nullptr);
  // counts: x 1, y 2, z 2, w 1, v 1
  EXPECT_EQ(names_of(list.most_frequent(3)), (std::vector<std::string>{"y", "z", "x"}));
  EXPECT_EQ(names_of(list.most_frequent(10)), (std::vector<std::string>{"y", "z", "x", "w", "v"}));
  EXPECT_TRUE(list.most_frequent(0).empty());
}

TEST(EventRefList, ManyDistinctNamesKeepTheirOwnReferences) {
  EventRefList list;
  constexpr int kNames = 20000;
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < kNames; ++k) list.add("op_" + std::to_string(k), k, k + 1, nullptr);
  }
  ASSERT_EQ(list.size(), static_cast<std::size_t>(kNames));
  EXPECT_EQ(list.all()[12345].name, "op_12345");
  EXPECT_EQ(list.all()[12345].count, 2);
}

}  // namespace
}  // namespace stepscope
