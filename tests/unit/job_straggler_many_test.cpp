// Several stragglers in one job: each rank late against the median rank is named, latest first;
// jitter, busy hosts and one long hiccup name none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "stepscope/job/job_analysis.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

using testing::summaries_of;

std::vector<std::int64_t> straggler_ranks(const job::JobAnalysis& j) {
  std::vector<std::int64_t> out;
  for (const job::Straggler& s : j.stragglers) out.push_back(s.rank);
  return out;
}

bool contains(const std::vector<std::int64_t>& ranks, std::int64_t rank) {
  return std::find(ranks.begin(), ranks.end(), rank) != ranks.end();
}

// `count` ranks copied from a 4-rank job's summaries: the balanced rank 0 everywhere, the
// planted straggler (2 ms later per step, in forward) at `slow`.
std::vector<job::RankSummary> copies(std::int64_t count, const std::vector<std::int64_t>& slow) {
  const std::vector<job::RankSummary> four =
      summaries_of(testing::job_jsons({1000, 1000, 3000, 1000}));
  std::vector<job::RankSummary> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t r = 0; r < count; ++r) {
    job::RankSummary s = contains(slow, r) ? four[2] : four[0];
    s.rank = r;
    s.world_size = count;
    s.file = "rank" + std::to_string(r) + ".json";
    out.push_back(std::move(s));
  }
  return out;
}

// A job of equal ranks over `steps` steps whose arrivals at the collectives jitter: each rank
// arrives uniformly within ±`spread_us` of a common time, the ranks in `busy` within ±`busy_us`.
std::vector<job::RankSummary> jittered(std::size_t ranks, int steps, double spread_us,
                                       const std::vector<std::int64_t>& busy, double busy_us) {
  const std::vector<double> forward(ranks, 1000);
  std::vector<std::string> jsons;
  for (std::size_t r = 0; r < ranks; ++r) {
    testing::JobRankSpec spec;
    spec.rank = static_cast<std::int64_t>(r);
    spec.world_size = static_cast<std::int64_t>(ranks);
    jsons.push_back(testing::job_rank_json(spec, forward, steps));
  }
  std::vector<job::RankSummary> out = summaries_of(jsons);
  std::mt19937_64 random(20240917);
  // Arrivals move earlier only (around 0.8 ms before the fixture's), so that none passes the end.
  constexpr double kCentreUs = -800;
  for (job::RankSummary& s : out) {
    const double half = contains(busy, s.rank) ? busy_us : spread_us;
    std::uniform_real_distribution<double> jitter_us(kCentreUs - half, kCentreUs + half);
    for (job::SummaryCollective& c : s.collectives) {
      c.start_ns += static_cast<std::int64_t>(jitter_us(random) * 1000);
    }
  }
  return out;
}

TEST(JobStragglers, TwoEqualStragglersAmongSixteenAreBothNamed) {
  std::vector<double> forward(16, 1000);
  forward[5] = 3000;
  forward[11] = 3000;
  const job::JobAnalysis j = job::analyze_job(summaries_of(testing::job_jsons(forward)));
  ASSERT_EQ(straggler_ranks(j), (std::vector<std::int64_t>{5, 11}));
  for (const job::Straggler& s : j.stragglers) {
    EXPECT_NEAR(s.late_ns_per_step, 2'000'000, 50'000) << s.rank;
    EXPECT_EQ(s.phase, "forward") << s.rank;
    // The fourteen fast ranks wait for it; the other straggler does not.
    EXPECT_EQ(s.waiting_ranks.size(), 14U) << s.rank;
    EXPECT_FALSE(contains(s.waiting_ranks, s.rank == 5 ? 11 : 5)) << s.rank;
    ASSERT_FALSE(s.evidence.empty());
    EXPECT_NE(s.evidence.front().find("arrives late in 100% of its 6 steps"), std::string::npos)
        << s.evidence.front();
  }
  // They tie at each collective: one of them counts as last there, and share_last says so.
  EXPECT_NEAR(j.stragglers[0].share_last + j.stragglers[1].share_last, 1.0, 1e-9);
  // Both are late at every one of them, and the verdict says so of the first.
  EXPECT_DOUBLE_EQ(j.stragglers[0].share_late, 1.0);
  EXPECT_DOUBLE_EQ(j.stragglers[1].share_late, 1.0);
  EXPECT_NE(j.verdict.find("arrives late in 100% of the steps"), std::string::npos) << j.verdict;
}

TEST(JobStragglers, TwoEqualStragglersAmongAThousandAndTwentyFourAreBothNamed) {
  const job::JobAnalysis j = job::analyze_job(copies(1024, {341, 683}));
  ASSERT_EQ(j.ranks.size(), 1024U);
  ASSERT_EQ(straggler_ranks(j), (std::vector<std::int64_t>{341, 683}));
  for (const job::Straggler& s : j.stragglers) {
    EXPECT_NEAR(s.late_ns_per_step, 2'000'000, 50'000) << s.rank;
    EXPECT_EQ(s.phase, "forward") << s.rank;
    EXPECT_EQ(s.waiting_ranks.size(), 1022U) << s.rank;
    // The op that takes longer on it, against the median rank.
    EXPECT_TRUE(std::any_of(s.evidence.begin(), s.evidence.end(), [](const std::string& e) {
      return e.find("aten::linear") != std::string::npos;
    })) << s.rank;
  }
}

TEST(JobStragglers, ThreeStragglersAreNamedLatestFirst) {
  std::vector<double> forward(16, 1000);
  forward[2] = 2000;   // 1 ms late
  forward[7] = 4000;   // 3 ms late
  forward[12] = 3000;  // 2 ms late
  const job::JobAnalysis j = job::analyze_job(summaries_of(testing::job_jsons(forward)));
  ASSERT_EQ(straggler_ranks(j), (std::vector<std::int64_t>{7, 12, 2}));
  EXPECT_NEAR(j.stragglers[0].late_ns_per_step, 3'000'000, 50'000);
  EXPECT_NEAR(j.stragglers[1].late_ns_per_step, 2'000'000, 50'000);
  EXPECT_NEAR(j.stragglers[2].late_ns_per_step, 1'000'000, 50'000);
  // The verdict names the latest.
  EXPECT_NE(j.verdict.find("rank 7"), std::string::npos) << j.verdict;
}

TEST(JobStragglers, ManyStragglersAreCappedLatestFirst) {
  std::vector<std::int64_t> slow;
  for (std::int64_t r = 100; r < 140; ++r) slow.push_back(r);
  const job::JobAnalysis j = job::analyze_job(copies(1024, slow));
  ASSERT_EQ(j.stragglers.size(), 16U);
  for (std::size_t k = 0; k < j.stragglers.size(); ++k) {
    EXPECT_EQ(j.stragglers[k].rank, 100 + static_cast<std::int64_t>(k));  // equal: by rank
  }
}

TEST(JobStragglers, JitterAndBusyHostsNameNone) {
  // Sixteen equal ranks jittering by ±0.3 ms, two of them on a busy host by ±0.75 ms: those two
  // are often last and late by more than 0.1 ms per step, but not systematically.
  const job::JobAnalysis j = job::analyze_job(jittered(16, 16, 300, {3, 7}, 750));
  EXPECT_EQ(j.matched_collectives, 16);
  EXPECT_TRUE(j.stragglers.empty())
      << j.stragglers.front().rank << " " << j.stragglers.front().evidence.front();
}

TEST(JobStragglers, TwoBalancedRanksOnABusyHostNameNone) {
  const job::JobAnalysis j = job::analyze_job(jittered(2, 16, 750, {}, 0));
  EXPECT_EQ(j.matched_collectives, 16);
  EXPECT_TRUE(j.stragglers.empty())
      << j.stragglers.front().rank << " " << j.stragglers.front().evidence.front();
}

TEST(JobStragglers, OneLongHiccupIsNotAStraggler) {
  // Rank 4 arrives 20 ms late at one collective of sixteen (the others wait, so every end moves).
  std::vector<job::RankSummary> ranks = jittered(16, 16, 0, {}, 0);
  constexpr std::int64_t kHiccupNs = 20'000'000;
  for (job::RankSummary& s : ranks) {
    ASSERT_EQ(s.collectives.size(), 16U);
    job::SummaryCollective& c = s.collectives[9];
    c.end_ns += kHiccupNs;
    if (s.rank == 4) c.start_ns += kHiccupNs;
  }
  const job::JobAnalysis j = job::analyze_job(ranks);
  EXPECT_TRUE(j.stragglers.empty()) << j.stragglers.front().rank;
  // The same lateness at every collective is a straggler.
  for (job::RankSummary& s : ranks) {
    for (std::size_t k = 0; k < s.collectives.size(); ++k) {
      if (k == 9) continue;
      s.collectives[k].end_ns += kHiccupNs;
      if (s.rank == 4) s.collectives[k].start_ns += kHiccupNs;
    }
  }
  EXPECT_EQ(straggler_ranks(job::analyze_job(ranks)), (std::vector<std::int64_t>{4}));
}

}  // namespace
}  // namespace stepscope
