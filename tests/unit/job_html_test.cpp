// The job section of the HTML report: every rank in the table, the straggler named where the
// others wait for it, and nothing from a trace unescaped.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "stepscope/job/job_report.h"
#include "support/text_count.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

using testing::occurrences;

TEST(JobHtml, ShowsEveryRankAndWhoTheOthersWaitFor) {
  const std::vector<std::string> jsons = testing::job_jsons({1000, 1000, 3200, 1000});
  const job::JobAnalysis job = job::analyze_job(testing::summaries_of(jsons));
  const std::string html = job::render_job_html_section(job);
  ASSERT_NE(html.find("<section class=\"job\">"), std::string::npos);
  // One row per rank in the rank table and one in the wait table.
  for (int rank = 0; rank < 4; ++rank) {
    EXPECT_EQ(occurrences(html, "<tr><td>" + std::to_string(rank) + "</td>"), 2U) << rank;
  }
  // Rank 2 arrives last at every all_reduce (6 steps); the others never do.
  EXPECT_NE(html.find("<tr><td>2</td><td>6</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>0</td><td>0</td>"), std::string::npos);
  ASSERT_FALSE(job.findings.empty());
  EXPECT_NE(html.find("(ranks 2"), std::string::npos) << html;
  EXPECT_NE(html.find("<h2>Step time per rank and step</h2>"), std::string::npos);
}

// Device idle is 0 by definition on CPU-only ranks: its column shows only where a rank ran on a
// device.
TEST(JobHtml, IdleColumnOnlyWhereARankHasDeviceActivity) {
  job::JobAnalysis job;
  job.summaries.resize(2);
  job.ranks.resize(2);
  EXPECT_EQ(job::render_job_html_section(job).find("idle (ms/step)"), std::string::npos);
  job.summaries[1].has_device_activity = true;
  EXPECT_NE(job::render_job_html_section(job).find("idle (ms/step)"), std::string::npos);
}

TEST(JobHtml, EscapesEveryStringFromTheTraces) {
  job::JobAnalysis job;
  job.verdict = "<script>alert(1)</script>";
  job.notes.emplace_back("rank 0 appears in both <a> and <b>");
  job::RankRow row;
  row.top_finding = "<img src=x onerror=alert(2)>";
  job.ranks.push_back(row);
  job::CollectiveRow collective;
  collective.kind = "all_reduce\"><svg onload=alert(3)>";
  collective.count = 1;
  job.collectives.push_back(collective);
  const std::string html = job::render_job_html_section(job);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<svg onload"), std::string::npos);
  EXPECT_EQ(html.find("<a>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

// A job finding that saves no step time says so in words, in the page and in the terminal.
TEST(JobHtml, AFindingThatSavesNoTimeSaysSoInWords) {
  job::JobAnalysis job;
  job.summaries.resize(1);
  job.ranks.resize(1);
  job::JobFinding growth;
  growth.finding.id = "memory-growth";
  growth.finding.title = "GPU 0 memory grows 8.0 MiB every step";
  growth.finding.bottleneck = Bottleneck::kMemoryCapacity;
  growth.finding.gain.method = "no time to gain per step";
  growth.ranks = {0};
  job.findings.push_back(growth);
  const std::string html = job::render_job_html_section(job);
  EXPECT_NE(html.find("<br>no time saved; avoids running out of memory</li>"), std::string::npos)
      << html;
  EXPECT_EQ(html.find("likely gain 0"), std::string::npos);
  const std::string text = job::render_job_text(job, 10);
  EXPECT_NE(text.find("gain: no time saved; avoids running out of memory; no time to gain"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("likely 0.00 ms"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
