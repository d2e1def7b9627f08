// Stragglers, balanced ranks, and the per-rank exposed-communication finding the job supersedes.
#include <gtest/gtest.h>

#include <algorithm>

#include "stepscope/job/job_analysis.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

using testing::summaries_of;

bool has_finding(const job::JobAnalysis& j, const std::string& id) {
  return std::any_of(j.findings.begin(), j.findings.end(),
                     [&id](const job::JobFinding& f) { return f.finding.id == id; });
}

TEST(JobStraggler, PlantedStragglerIsNamedWithRankAndPhase) {
  const job::JobAnalysis j =
      job::analyze_job(summaries_of(testing::job_jsons({1000, 1000, 3000, 1000})));
  ASSERT_EQ(j.ranks.size(), 4U);
  EXPECT_GT(j.matched_collectives, 0);
  ASSERT_EQ(j.stragglers.size(), 1U);
  const job::Straggler& s = j.stragglers.front();
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.phase, "forward");
  EXPECT_NEAR(s.late_ns_per_step, 2'000'000, 50'000);  // 2 ms later than the others
  EXPECT_GE(s.share_last, 0.99);
  EXPECT_EQ(s.waiting_ranks, (std::vector<std::int64_t>{0, 1, 3}));
  ASSERT_TRUE(has_finding(j, "straggler"));
  const job::JobFinding& f = j.findings.front();
  EXPECT_EQ(f.finding.id, "straggler");
  EXPECT_EQ(f.finding.rank, 2);
  EXPECT_NE(f.finding.fix.find("rank 2"), std::string::npos) << f.finding.fix;
  EXPECT_EQ(f.finding.fix.find("bucket_cap_mb"), std::string::npos) << f.finding.fix;
  EXPECT_NE(j.verdict.find("rank 2"), std::string::npos) << j.verdict;
  // The fast ranks wait about 2 ms per step and do not get "tune the collective".
  for (const job::RankRow& row : j.ranks) {
    if (row.rank == 2) {
      EXPECT_LT(row.wait_ns, 100'000);
      continue;
    }
    EXPECT_NEAR(row.wait_ns, 2'000'000, 50'000) << "rank " << row.rank;
    EXPECT_NE(row.top_finding, "exposed-communication") << "rank " << row.rank;
    // On the CPU the rank's own view of the wait is cpu-collectives: superseded the same way.
    EXPECT_NE(row.top_finding, "cpu-collectives") << "rank " << row.rank;
  }
  EXPECT_FALSE(has_finding(j, "exposed-communication"));
  EXPECT_LT(j.scaling.efficiency, 0.8);
}

TEST(JobStraggler, EqualRanksHaveNoStragglerAndNoWaitingFinding) {
  const job::JobAnalysis j =
      job::analyze_job(summaries_of(testing::job_jsons({1000, 1000, 1000, 1000})));
  EXPECT_GT(j.matched_collectives, 0);
  EXPECT_TRUE(j.stragglers.empty());
  EXPECT_FALSE(has_finding(j, "straggler"));
  EXPECT_FALSE(has_finding(j, "rank-imbalance"));
  for (const job::RankRow& row : j.ranks) EXPECT_LT(row.wait_ns, 10'000) << row.rank;
  EXPECT_EQ(j.verdict.find("traggler"), std::string::npos) << j.verdict;
  EXPECT_EQ(j.verdict.find("wait"), std::string::npos) << j.verdict;
}

}  // namespace
}  // namespace stepscope
