// Separate runs in one folder are told apart; the newest is analysed unless --run says.
#include <gtest/gtest.h>

#include "stepscope/job/job_analysis.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

TEST(JobRuns, TwoRunsInOneFolderAreToldApart) {
  // Run A: two ranks at t = 1 s; run B: the same two ranks a minute later.
  std::vector<std::string> jsons = testing::job_jsons({1000, 1000}, {}, 1'000'000);
  const std::vector<std::string> later = testing::job_jsons({1000, 3000}, {}, 61'000'000);
  jsons.insert(jsons.end(), later.begin(), later.end());
  std::vector<job::RankSummary> summaries;
  for (std::size_t i = 0; i < jsons.size(); ++i) {
    summaries.push_back(testing::summary_of(jsons[i], "file" + std::to_string(i) + ".json"));
  }
  const std::vector<job::RunInfo> runs = job::group_runs(summaries);
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0].ranks, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(runs[1].files, (std::vector<std::string>{"file2.json", "file3.json"}));

  const job::JobAnalysis newest = job::analyze_job(summaries);
  ASSERT_EQ(newest.ranks.size(), 2U);
  EXPECT_TRUE(newest.runs[1].analysed);
  ASSERT_EQ(newest.stragglers.size(), 1U);  // run B has the straggler
  EXPECT_EQ(newest.stragglers.front().rank, 1);
  EXPECT_FALSE(newest.notes.empty());

  const job::JobAnalysis first = job::analyze_job(summaries, job::JobOptions{0, std::nullopt});
  EXPECT_TRUE(first.runs[0].analysed);
  EXPECT_TRUE(first.stragglers.empty());
}

TEST(JobRuns, DifferentWorldSizesAreDifferentRuns) {
  std::vector<std::string> jsons = testing::job_jsons({1000, 1000});
  const std::vector<std::string> three = testing::job_jsons({1000, 1000, 1000});
  std::vector<job::RankSummary> summaries = testing::summaries_of(jsons);
  summaries.push_back(testing::summary_of(three[2], "other.json"));
  EXPECT_EQ(job::group_runs(summaries).size(), 2U);
}

TEST(JobRuns, MissingRanksAreSaid) {
  // World size 4, ranks 0 and 1 only.
  std::vector<std::string> jsons = testing::job_jsons({1000, 1000, 1000, 1000});
  jsons.resize(2);
  const job::JobAnalysis j = job::analyze_job(testing::summaries_of(jsons));
  bool said = false;
  for (const std::string& note : j.notes)
    said = said || note.find("ranks 2, 3") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace stepscope
