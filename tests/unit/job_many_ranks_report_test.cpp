// The job report of thousands of ranks stays readable and bounded: the terminal summarises the
// ranks (spread, slowest and fastest, outliers) instead of a row each, and the HTML page groups
// consecutive ranks (and steps) so that it stays under its 5 MB cap, saying how.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "render/rank_spread.h"
#include "stepscope/job/job_analysis.h"
#include "stepscope/job/job_report.h"
#include "support/text_count.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

constexpr std::size_t kPageCapBytes = 5'000'000;

using testing::occurrences;

// `count` ranks copied from a 4-rank job: the balanced rank 0 everywhere, the planted straggler
// (2 ms more forward per step) at `slow`.
std::vector<job::RankSummary> copies(std::int64_t count, std::int64_t slow) {
  const std::vector<job::RankSummary> four =
      testing::summaries_of(testing::job_jsons({1000, 1000, 3000, 1000}));
  std::vector<job::RankSummary> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t r = 0; r < count; ++r) {
    job::RankSummary s = r == slow ? four[2] : four[0];
    s.rank = r;
    s.world_size = count;
    s.file = "rank" + std::to_string(r) + ".json";
    out.push_back(std::move(s));
  }
  return out;
}

const job::JobAnalysis& thousand_ranks() {
  static const job::JobAnalysis job = job::analyze_job(copies(1024, 517));
  return job;
}

TEST(JobManyRanksText, ThousandRanksAreSummarisedNotListed) {
  const std::string text = job::render_job_text(thousand_ranks(), TextOptions{10, 100});
  // No row per rank: the ranks that are neither slowest, fastest nor outliers are absent.
  EXPECT_EQ(text.find("\n  300 "), std::string::npos) << text;
  EXPECT_LT(occurrences(text, "\n"), 120U) << text;
  EXPECT_NE(text.find("1,024 ranks summarised"), std::string::npos) << text;
  EXPECT_NE(text.find("(--json)"), std::string::npos);
  // The spread with its unit, the slowest ranks, and the planted outlier named with its reason.
  EXPECT_NE(text.find("ms per step"), std::string::npos) << text;
  EXPECT_NE(text.find("slowest 5 ranks (longest compute per step)"), std::string::npos);
  // The planted rank leads the slowest: the first row after that line.
  const std::size_t slowest = text.find("slowest 5 ranks");
  const std::size_t first_row = text.find('\n', text.find('\n', slowest) + 1) + 1;
  std::istringstream row(text.substr(first_row, 40));
  std::string first_word;
  row >> first_word;
  EXPECT_EQ(first_word, "517") << text;
  EXPECT_NE(text.find("fastest 5 ranks"), std::string::npos);
  EXPECT_NE(text.find("outlier ranks: 1 (above median + 5 × MAD"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 517: compute"), std::string::npos) << text;
  EXPECT_NE(text.find("ms (median"), std::string::npos);
  // The straggler and its phase still stand in their own section.
  EXPECT_NE(text.find("Stragglers"), std::string::npos);
  EXPECT_NE(text.find("rank 517: 2.0"), std::string::npos) << text;
  EXPECT_NE(text.find("phase forward"), std::string::npos) << text;
}

TEST(JobManyRanksText, SixteenRanksKeepTheirTable) {
  std::vector<double> forward(16, 1000);
  forward[5] = 3000;
  const job::JobAnalysis job = job::analyze_job(testing::summaries_of(testing::job_jsons(forward)));
  const std::string text = job::render_job_text(job, TextOptions{10, 100});
  EXPECT_EQ(text.find("ranks summarised"), std::string::npos);
  // A row per rank: a line whose first word is the rank.
  std::vector<std::int64_t> listed;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (!first.empty() && std::all_of(first.begin(), first.end(), ::isdigit)) {
      listed.push_back(std::stoll(first));
    }
  }
  for (std::int64_t rank = 0; rank < 16; ++rank) {
    EXPECT_EQ(std::count(listed.begin(), listed.end(), rank), 1) << rank << "\n" << text;
  }
}

TEST(JobManyRanksSpread, OutliersNeedAClearDistanceFromTheMedian) {
  std::vector<job::RankRow> rows(100);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i].rank = static_cast<std::int64_t>(i);
    rows[i].step_p50_ns = 10e6 + static_cast<double>(i % 7) * 1e3;  // noise of a few µs
    rows[i].compute_ns = 8e6;
    rows[i].wait_ns = 1e6;
  }
  EXPECT_TRUE(render::rank_outliers(rows).empty());
  rows[42].compute_ns = 9e6;  // 12.5 % above the median: an outlier
  rows[7].wait_ns = 0;        // a rank that never waits: the others wait for it
  const std::vector<render::RankOutlier> outliers = render::rank_outliers(rows);
  ASSERT_EQ(outliers.size(), 2U);
  // The farthest beyond its threshold first: rank 7's wait by 0.95 ms, rank 42's compute 0.6 ms.
  EXPECT_EQ(outliers[0].row->rank, 7);
  EXPECT_EQ(outliers[1].row->rank, 42);
  const render::Spread s = render::spread_of(rows, &job::RankRow::step_p50_ns);
  EXPECT_DOUBLE_EQ(s.min, 10e6);
  EXPECT_DOUBLE_EQ(s.max, 10e6 + 6e3);
  // Slowest by compute (rank 42), then equal compute by the longer step; fastest none of those.
  const render::ExtremeRanks extremes = render::extreme_ranks(rows, 2);
  ASSERT_EQ(extremes.slowest.size(), 2U);
  EXPECT_EQ(extremes.slowest[0]->rank, 42);
  EXPECT_EQ(extremes.slowest[1]->rank, 6);
  ASSERT_EQ(extremes.fastest.size(), 2U);
  EXPECT_EQ(extremes.fastest[0]->rank, 98);  // step p50 10.000 ms, compute 8 ms, the last such
  EXPECT_EQ(extremes.fastest[1]->rank, 91);
}

TEST(JobManyRanksSpread, ConsecutiveGroupsCoverEveryItemOnce) {
  const std::vector<render::IndexRange> groups = render::consecutive_groups(10'000, 256);
  ASSERT_LE(groups.size(), 256U);
  EXPECT_EQ(groups.front().first, 0U);
  EXPECT_EQ(groups.back().last, 9'999U);
  for (std::size_t i = 1; i < groups.size(); ++i) {
    EXPECT_EQ(groups[i].first, groups[i - 1].last + 1);
  }
  EXPECT_EQ(render::consecutive_groups(3, 256).size(), 3U);
}

TEST(JobManyRanksHtml, TenThousandRanksStayUnderTheCapAndSayHowRanksWereGrouped) {
  const job::JobAnalysis job = job::analyze_job(copies(10'000, 7'321));
  const std::string html = job::render_job_html(job);
  EXPECT_LT(html.size(), kPageCapBytes);
  EXPECT_NE(html.find("10000 ranks, shown as 250 rows of up to 40 consecutive ranks"),
            std::string::npos);
  EXPECT_NE(html.find("The 10000 ranks are drawn as 127 rows of up to 79 consecutive ranks"),
            std::string::npos);
  EXPECT_NE(html.find("of 10000 ranks.</p>"), std::string::npos);
  // The straggler keeps a row of its own among the outliers, and its group shows its step.
  EXPECT_NE(html.find("<tr><td>7321</td><td>compute"), std::string::npos);
  EXPECT_EQ(html.find("<tr><td>5000</td>"), std::string::npos);
  EXPECT_NE(html.find("ranks 7268–7346"), std::string::npos);
}

TEST(JobManyRanksHtml, ManyStepsAreGroupedIntoColumns) {
  std::vector<job::RankSummary> summaries = copies(8, 3);
  for (job::RankSummary& s : summaries) {
    const std::vector<job::SummaryStep> steps = s.steps;
    const std::int64_t period = steps.back().end_ns - steps.front().start_ns;
    for (std::int64_t k = 1; k < 50; ++k) {
      for (job::SummaryStep step : steps) {
        step.number += k * static_cast<std::int64_t>(steps.size());
        step.start_ns += k * period;
        step.end_ns += k * period;
        s.steps.push_back(step);
      }
    }
  }
  const job::JobAnalysis job = job::analyze_job(std::move(summaries));
  const std::size_t steps = job.summaries.front().steps.size();
  ASSERT_GT(steps, 100U);
  const std::string html = job::render_job_html(job);
  EXPECT_NE(html.find(fmt::format("The {} steps are drawn as", steps)), std::string::npos);
  // Every rank keeps its own row below 128 ranks.
  EXPECT_EQ(html.find("ranks are drawn as"), std::string::npos);
  EXPECT_LT(occurrences(html, "<rect x="), 8U * 101U);
}

}  // namespace
}  // namespace stepscope
