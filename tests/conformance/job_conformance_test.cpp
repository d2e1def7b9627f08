// The job analysis on the real multi-rank folder: two sampled ranks of a 128-rank NCCL job.
#include <gtest/gtest.h>

#include "report/report_model.h"
#include "stepscope/report.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

TEST(JobConformance, SampledTwoRanksOfA128RankJob) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  AnalyzeRequest request;
  request.path = testing::shared_traces_dir() + "/hta/sampled_two_ranks";
  request.stream_folder = false;  // every rank's analyses kept, to compare their step counts
  Result<ReportPtr> report = analyze(request);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  ASSERT_TRUE((*report)->job.has_value());
  const job::JobAnalysis& j = *(*report)->job;
  EXPECT_EQ(j.world_size, 128);
  ASSERT_EQ(j.ranks.size(), 2U);
  EXPECT_EQ(j.ranks[0].rank, 0);
  EXPECT_EQ(j.ranks[1].rank, 1);
  EXPECT_EQ(j.runs.size(), 1U);
  for (const job::RankRow& row : j.ranks) {
    EXPECT_EQ(
        row.steps,
        static_cast<std::int64_t>(
            (*report)->ranks[static_cast<std::size_t>(row.rank)].analyses.steps.kept().size()));
  }
  // 126 ranks are missing, and the notes say so.
  bool missing = false;
  for (const std::string& note : j.notes) {
    missing = missing || note.find("126 of 128 ranks") != std::string::npos;
  }
  EXPECT_TRUE(missing);
  EXPECT_FALSE(j.verdict.empty());
  const std::string text = render_text(**report, 10);
  EXPECT_NE(text.find("Job"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
