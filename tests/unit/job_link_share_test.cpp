// busbw as a share of the link's peak: known sizes and times give a known share; without a
// stated peak the share is unknown (null in JSON, "link unknown" in the report), never a guess.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "stepscope/job/job_analysis.h"
#include "stepscope/job/job_report.h"

namespace stepscope {
namespace {

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kBytes = 100'000'000;  // 100 MB per all_reduce

// Two ranks, three all_reduces of 100 MB each: rank 0 arrives at 1 ms, rank 1 at 2 ms, both end
// at 3 ms. Transfer 1 ms each: algbw = 100 MB / 1 ms = 100 GB/s, and busbw = algbw × 2(n-1)/n
// = 100 GB/s for n = 2.
job::RankSummary rank_summary(std::int64_t rank, std::int64_t bytes) {
  job::RankSummary s;
  s.rank = rank;
  s.rank_source = "distributed_info";
  s.world_size = 2;
  s.backend = "nccl";
  s.file = rank == 0 ? "rank0.json" : "rank1.json";
  s.trace_start_ns = 0;
  s.trace_end_ns = 40 * kMs;
  s.has_device_activity = true;
  for (std::int64_t k = 0; k < 3; ++k) {
    const std::int64_t base = k * 10 * kMs;
    job::SummaryStep step;
    step.number = k + 1;
    step.start_ns = base;
    step.end_ns = base + 10 * kMs;
    step.compute_ns = 5 * kMs;
    step.communication_ns = 2 * kMs;
    s.steps.push_back(step);
    job::SummaryCollective c;
    c.kind = "all_reduce";
    c.group = "default";
    c.order = k;
    c.bytes = bytes;
    c.dtype = "Float";
    c.group_size = 2;
    c.start_ns = base + (rank == 0 ? 1 : 2) * kMs;
    c.end_ns = base + 3 * kMs;
    c.step = k + 1;
    s.collectives.push_back(c);
  }
  return s;
}

job::JobAnalysis job_with(std::optional<double> link_gb_per_s, std::int64_t bytes = kBytes) {
  job::JobOptions options;
  options.link_peak_gb_per_s = link_gb_per_s;
  return job::analyze_job({rank_summary(0, bytes), rank_summary(1, bytes)}, options);
}

TEST(JobLinkShare, KnownSizesAndTimesGiveTheShareOfTheStatedPeak) {
  const job::JobAnalysis job = job_with(400.0);
  ASSERT_EQ(job.collectives.size(), 1U);
  const job::CollectiveRow& row = job.collectives.front();
  EXPECT_EQ(row.count, 3);
  EXPECT_NEAR(row.busbw_gb_per_s, 100.0, 1e-9);
  ASSERT_TRUE(row.link_peak_gb_per_s.has_value());
  EXPECT_DOUBLE_EQ(*row.link_peak_gb_per_s, 400.0);
  ASSERT_TRUE(row.busbw_share_of_link_peak.has_value());
  EXPECT_NEAR(*row.busbw_share_of_link_peak, 0.25, 1e-12);

  const std::string json = job::render_job_json(job);
  EXPECT_NE(json.find("\"link_peak_gb_per_s\":400"), std::string::npos) << json;
  EXPECT_NE(json.find("\"busbw_share_of_link_peak\":0.25"), std::string::npos) << json;
  const std::string text = job::render_job_text(job, 10);
  EXPECT_NE(text.find("25 %"), std::string::npos) << text;
  EXPECT_NE(text.find("busbw / 400.0 GB/s"), std::string::npos) << text;
  EXPECT_NE(job::render_job_html(job).find("busbw / 400.0 GB/s"), std::string::npos);
}

TEST(JobLinkShare, UnknownWithoutAStatedPeak) {
  for (const std::optional<double> link :
       {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{-5.0},
        std::optional<double>{std::numeric_limits<double>::quiet_NaN()}}) {
    const job::JobAnalysis job = job_with(link);
    ASSERT_EQ(job.collectives.size(), 1U);
    EXPECT_NEAR(job.collectives.front().busbw_gb_per_s, 100.0, 1e-9);
    EXPECT_FALSE(job.collectives.front().link_peak_gb_per_s.has_value());
    EXPECT_FALSE(job.collectives.front().busbw_share_of_link_peak.has_value());
    const std::string json = job::render_job_json(job);
    EXPECT_NE(json.find("\"link_peak_gb_per_s\":null,\"busbw_share_of_link_peak\":null"),
              std::string::npos)
        << json;
    EXPECT_NE(job::render_job_text(job, 10).find("link unknown (pass --link-gbps)"),
              std::string::npos);
    EXPECT_NE(job::render_job_html(job).find("link unknown (pass --link-gbps)"), std::string::npos);
  }
}

TEST(JobLinkShare, NoShareWhereTheSizesAreUnknown) {
  const job::JobAnalysis job = job_with(400.0, /*bytes=*/-1);
  ASSERT_EQ(job.collectives.size(), 1U);
  EXPECT_EQ(job.collectives.front().busbw_gb_per_s, 0);
  EXPECT_TRUE(job.collectives.front().link_peak_gb_per_s.has_value());
  EXPECT_FALSE(job.collectives.front().busbw_share_of_link_peak.has_value());
}

}  // namespace
}  // namespace stepscope
