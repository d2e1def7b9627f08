// Clock offsets between hosts are recovered from collective ends and create no straggler.
#include <gtest/gtest.h>

#include <cstdlib>

#include "stepscope/job/job_analysis.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

TEST(JobClock, OffsetBetweenHostsIsRecoveredWithinATenthOfAMillisecond) {
  // Rank 1's host clock reads 5 ms ahead: without alignment it would arrive "late" every time.
  const job::JobAnalysis j =
      job::analyze_job(testing::summaries_of(testing::job_jsons({1000, 1000}, {0, 5000})));
  ASSERT_EQ(j.clock_offsets.size(), 2U);
  EXPECT_EQ(j.clock_offsets[0].offset_ns, 0);
  EXPECT_EQ(j.clock_offsets[1].rank, 1);
  EXPECT_LT(std::llabs(j.clock_offsets[1].offset_ns - 5'000'000), 100'000)
      << j.clock_offsets[1].offset_ns;
  EXPECT_TRUE(j.stragglers.empty());
  for (const job::RankRow& row : j.ranks) EXPECT_LT(row.wait_ns, 100'000) << row.rank;
}

TEST(JobClock, OffsetDoesNotHideARealStraggler) {
  const job::JobAnalysis j =
      job::analyze_job(testing::summaries_of(testing::job_jsons({1000, 2500}, {0, -7000})));
  EXPECT_LT(std::llabs(j.clock_offsets[1].offset_ns + 7'000'000), 100'000);
  ASSERT_EQ(j.stragglers.size(), 1U);
  EXPECT_EQ(j.stragglers.front().rank, 1);
}

}  // namespace
}  // namespace stepscope
