// merge over written summaries gives exactly the job of `analyze FOLDER`; summaries round-trip.
#include <gtest/gtest.h>

#include <filesystem>

#include "report/report_model.h"
#include "stepscope/job/job_report.h"
#include "stepscope/report.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

// The text of the object after `"job":`, braces matched outside strings.
std::string job_object(const std::string& document) {
  const std::size_t key = document.find("\"job\":");
  if (key == std::string::npos) return {};
  const std::size_t start = key + 6;
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = start; i < document.size(); ++i) {
    const char c = document[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) return document.substr(start, i + 1 - start);
  }
  return {};
}

TEST(JobMerge, MergeOfSummariesEqualsAnalyzeFolder) {
  const auto folder = testing::job_folder("merge");
  const std::vector<std::string> jsons = testing::job_jsons({1000, 2800, 1000});
  std::vector<std::string> paths;
  for (std::size_t r = 0; r < jsons.size(); ++r) {
    const auto path = folder / ("rank" + std::to_string(r) + ".json");
    testing::write_file(path, jsons[r]);
    paths.push_back(path.string());
  }
  AnalyzeRequest request;
  request.path = folder.string();
  Result<ReportPtr> report = analyze(request);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  ASSERT_TRUE((*report)->job.has_value());
  const std::string from_folder = job_object(render_json(**report));

  std::vector<std::string> summaries;
  for (const std::string& path : paths) {
    Result<std::string> summary = job::summarize_file(path, AnalysisOptions{});
    ASSERT_TRUE(summary.ok()) << summary.error().describe();
    summaries.push_back(*summary);
  }
  Result<job::JobAnalysis> merged = job::merge_summaries(summaries, paths);
  ASSERT_TRUE(merged.ok()) << merged.error().describe();
  const std::string from_merge = job_object(job::render_job_json(*merged));
  ASSERT_FALSE(from_folder.empty());
  EXPECT_EQ(from_folder, from_merge);
  EXPECT_NE(from_merge.find("\"stragglers\":[{\"rank\":1"), std::string::npos) << from_merge;
  std::filesystem::remove_all(folder);
}

TEST(JobMerge, SummaryRoundTripsThroughJson) {
  const job::RankSummary s = testing::summary_of(testing::job_jsons({1000, 1000})[1], "rank1.json");
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.world_size, 2);
  EXPECT_EQ(s.collectives.size(), 6U);
  EXPECT_EQ(s.collectives.front().kind, "all_reduce");
  EXPECT_FALSE(s.collectives.front().on_device);
  const std::string text = job::summary_to_json(s);
  Result<job::RankSummary> back = job::summary_from_json(text, "x");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(job::summary_to_json(*back), text);
}

TEST(JobMerge, ForeignDocumentsAreRefusedWithTheirName) {
  Result<job::RankSummary> bad = job::summary_from_json("{\"traceEvents\": []}", "trace.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().file, "trace.json");
  EXPECT_NE(bad.error().message.find("summary_version"), std::string::npos);
  Result<job::RankSummary> version =
      job::summary_from_json("{\"summary_version\": 99}", "future.json");
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.error().message.find("99"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
