// Summaries come from other hands: impossible values are refused with the file named, a world
// size sizes nothing, and a rank given twice is analysed once (issue: "Clusters for real").
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "stepscope/job/job_analysis.h"
#include "stepscope/job/job_report.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

job::RankSummary rank_one() {
  return testing::summary_of(testing::job_jsons({1000, 1000})[1], "rank1.json");
}

// The summary, spoiled by `spoil`, read back: the refusal's message, or "" when accepted.
std::string refusal(const std::function<void(job::RankSummary&)>& spoil) {
  job::RankSummary s = rank_one();
  spoil(s);
  Result<job::RankSummary> back = job::summary_from_json(job::summary_to_json(s), "r1.json");
  if (back.ok()) return "";
  EXPECT_EQ(back.error().file, "r1.json");
  EXPECT_EQ(back.error().kind, ErrorKind::kNotTrace);
  return back.error().message;
}

std::string joined(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& note : notes) out += note + "\n";
  return out;
}

bool has_note(const job::JobAnalysis& job, const std::string& text) {
  for (const std::string& note : job.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(UntrustedSummaries, AnUntouchedSummaryIsAccepted) {
  EXPECT_EQ(refusal([](job::RankSummary&) {}), "");
}

TEST(UntrustedSummaries, ImpossibleValuesAreRefusedNamingTheField) {
  using S = job::RankSummary;
  EXPECT_NE(refusal([](S& s) { s.steps[0].end_ns = s.steps[0].start_ns - 1; }).find("ends"),
            std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.steps[1].compute_ns = -5; }).find("compute_ns is negative"),
            std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.steps[0].phase_ns[0] = -1; }).find("phase_ns"), std::string::npos);
  EXPECT_NE(refusal([](S& s) {
              s.collectives[0].end_ns = s.collectives[0].start_ns - 1;
            }).find("collective"),
            std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.collectives[0].bytes = -2; }).find("bytes"), std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.rank = -3; }).find("rank -3"), std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.rank = std::int64_t{1} << 40; }).find("rank"), std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.rank = 5; }).find("outside a world of 2"), std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.world_size = 0; }).find("world_size"), std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.trace_end_ns = INT64_MAX; }).find("beyond"), std::string::npos);
  EXPECT_NE(refusal([](S& s) { s.steps[0].start_ns = INT64_MIN; }).find("beyond"),
            std::string::npos);
  EXPECT_NE(refusal([](S& s) {
              s.findings.push_back({"x", "t", "high", "b", "p", 1, -0.5, "f"});
            }).find("finding x"),
            std::string::npos);
  EXPECT_NE(refusal([](S& s) {
              s.ops.push_back({"aten::mm", -7});
            }).find("aten::mm"),
            std::string::npos);
}

TEST(UntrustedSummaries, TextThatIsNotJsonIsNotJson) {
  Result<job::RankSummary> bad = job::summary_from_json("{\"summary_version\": 1,", "cut.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().kind, ErrorKind::kNotJson);
  EXPECT_EQ(bad.error().file, "cut.json");
}

TEST(UntrustedSummaries, AHugeWorldSizeIsANoteNotAnAllocation) {
  std::vector<job::RankSummary> summaries = testing::summaries_of(testing::job_jsons({1000, 1000}));
  for (job::RankSummary& s : summaries) s.world_size = std::int64_t{1} << 40;
  const job::JobAnalysis job = job::analyze_job(summaries);
  EXPECT_EQ(job.ranks.size(), 2U);
  EXPECT_TRUE(has_note(job,
                       "1099511627774 of 1099511627776 ranks have no trace here (ranks 2, "
                       "3, 4"))
      << joined(job.notes);
  EXPECT_TRUE(has_note(job, "and 1099511627758 more"));
}

TEST(UntrustedSummaries, MissingRanksBetweenAndAfterThePresentOnes) {
  std::vector<std::string> jsons = testing::job_jsons({1000, 1000, 1000, 1000, 1000});
  std::vector<job::RankSummary> all = testing::summaries_of(jsons);
  const std::vector<job::RankSummary> some = {all[0], all[2]};
  EXPECT_TRUE(has_note(job::analyze_job(some), "3 of 5 ranks have no trace here (ranks 1, 3, 4)"));
}

TEST(UntrustedSummaries, ARankGivenTwiceIsAnalysedOnceAndNamed) {
  std::vector<job::RankSummary> summaries = testing::summaries_of(testing::job_jsons({1000, 3000}));
  job::RankSummary copy = summaries[1];
  copy.file = "copy_of_rank1.json";
  summaries.push_back(copy);
  const job::JobAnalysis job = job::analyze_job(summaries);
  ASSERT_EQ(job.runs.size(), 1U);
  ASSERT_EQ(job.ranks.size(), 2U);
  EXPECT_EQ(job.ranks[0].rank, 0);
  EXPECT_EQ(job.ranks[1].rank, 1);
  EXPECT_TRUE(has_note(job,
                       "1 summaries repeat a rank already given for the same time: rank 1 "
                       "(copy_of_rank1.json)"))
      << joined(job.notes);
  // The job over the distinct ranks is the job without the copy.
  summaries.pop_back();
  const job::JobAnalysis without = job::analyze_job(summaries);
  EXPECT_EQ(job.matched_collectives, without.matched_collectives);
  ASSERT_EQ(job.stragglers.size(), without.stragglers.size());
  EXPECT_EQ(job.stragglers.front().rank, 1);
}

TEST(UntrustedSummaries, TheSameRanksLaterAreStillAnotherRun) {
  std::vector<job::RankSummary> summaries = testing::summaries_of(testing::job_jsons({1000, 1000}));
  const std::vector<job::RankSummary> later =
      testing::summaries_of(testing::job_jsons({1000, 1000}, {}, 61'000'000));
  summaries.insert(summaries.end(), later.begin(), later.end());
  EXPECT_EQ(job::group_runs(summaries).size(), 2U);
  for (const job::RunInfo& run : job::group_runs(summaries)) EXPECT_TRUE(run.duplicates.empty());
}

}  // namespace
}  // namespace stepscope
