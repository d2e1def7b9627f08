// A folder is analysed one trace at a time (`jobs` at once): the job is the same as when every
// trace is held at once, and only rank 0 and the ranks computing longest keep their full
// analyses unless --per-rank asks for every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "report/report_model.h"
#include "stepscope/job/job_report.h"
#include "stepscope/report.h"
#include "unit/job_fixture.h"

namespace stepscope {
namespace {

constexpr std::size_t kRankCount = 10;

// Ranks 3 and 7 compute longest, rank 5 a little longer than the rest.
std::vector<double> forward_times() {
  std::vector<double> forward(kRankCount, 1000);
  forward[3] = 3000;
  forward[7] = 2600;
  forward[5] = 1400;
  return forward;
}

std::filesystem::path write_job(const std::string& name) {
  auto folder = testing::job_folder(name);
  const std::vector<std::string> jsons = testing::job_jsons(forward_times());
  for (std::size_t r = 0; r < jsons.size(); ++r) {
    // Names not in rank order: the ranks come from distributedInfo.
    testing::write_file(folder / ("trace_" + std::to_string((r * 7) % kRankCount) + "_r" +
                                  std::to_string(r) + ".json"),
                        jsons[r]);
  }
  return folder;
}

Result<ReportPtr> analyze_folder(const std::filesystem::path& folder, bool stream, unsigned jobs) {
  AnalyzeRequest request;
  request.path = folder.string();
  request.stream_folder = stream;
  request.jobs = jobs;
  return analyze(request);
}

std::vector<std::int64_t> ranks_in_full(const Report& report) {
  std::vector<std::int64_t> ranks;
  for (const RenderedRank& rank : report.rendered) ranks.push_back(rank.rank);
  return ranks;
}

TEST(JobStreaming, KeepsRankZeroAndTheRanksComputingLongestInFull) {
  const auto folder = write_job("stream_kept");
  Result<ReportPtr> streamed = analyze_folder(folder, true, 2);
  ASSERT_TRUE(streamed.ok()) << streamed.error().describe();
  const Report& report = **streamed;
  EXPECT_EQ(report.rendered.size(), kRanksKeptInFull);
  EXPECT_TRUE(report.ranks.empty());
  EXPECT_EQ(ranks_in_full(report), (std::vector<std::int64_t>{0, 3, 5, 7}));
  ASSERT_TRUE(report.job.has_value());
  EXPECT_EQ(report.input_files.size(), kRankCount);
  EXPECT_TRUE(report.traces.ranks.empty());
  std::filesystem::remove_all(folder);
}

TEST(JobStreaming, JobAndKeptRanksAreThoseOfTheWholeFolder) {
  const auto folder = write_job("stream_same");
  Result<ReportPtr> whole = analyze_folder(folder, false, 1);
  Result<ReportPtr> one_thread = analyze_folder(folder, true, 1);
  Result<ReportPtr> two_threads = analyze_folder(folder, true, 2);
  ASSERT_TRUE(whole.ok() && one_thread.ok() && two_threads.ok());
  ASSERT_TRUE((*whole)->job && (*one_thread)->job && (*two_threads)->job);
  EXPECT_EQ((*whole)->ranks.size(), kRankCount);
  EXPECT_EQ((*whole)->input_files, (*one_thread)->input_files);

  const std::string job_whole = job::render_job_json(*(*whole)->job);
  EXPECT_EQ(job_whole, job::render_job_json(*(*one_thread)->job));
  EXPECT_EQ(job_whole, job::render_job_json(*(*two_threads)->job));
  // Each kept rank is rendered as the whole folder renders that rank.
  ASSERT_EQ((*two_threads)->rendered.size(), kRanksKeptInFull);
  for (const RenderedRank& kept : (*two_threads)->rendered) {
    const auto same =
        std::find_if((*whole)->ranks.begin(), (*whole)->ranks.end(),
                     [&kept](const RankReport& r) { return r.analyses.trace->rank == kept.rank; });
    ASSERT_NE(same, (*whole)->ranks.end());
    EXPECT_EQ(render_rank_json(*same), kept.json) << kept.rank;
    EXPECT_EQ(render_rank_html(*same, AnalysisOptions{}.top, true), kept.html) << kept.rank;
  }
  // The document lists the kept ranks' objects in its `ranks` array.
  const std::string document = render_json(**two_threads);
  EXPECT_NE(document.find("\"ranks\":[" + (*two_threads)->rendered.front().json + ","),
            std::string::npos);
  std::filesystem::remove_all(folder);
}

TEST(JobStreaming, PerRankRendersEveryRankWithoutHoldingTheirTraces) {
  const auto folder = write_job("stream_per_rank");
  Result<ReportPtr> whole = analyze_folder(folder, false, 2);
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE((*whole)->rendered.empty());
  ASSERT_EQ((*whole)->ranks.size(), kRankCount);

  AnalyzeRequest per_rank;
  per_rank.path = folder.string();
  per_rank.per_rank = true;
  per_rank.jobs = 2;
  Result<ReportPtr> all = analyze(per_rank);
  ASSERT_TRUE(all.ok()) << all.error().describe();
  EXPECT_TRUE((*all)->ranks.empty());
  EXPECT_TRUE((*all)->traces.ranks.empty());
  ASSERT_EQ((*all)->rendered.size(), kRankCount);
  const int top = AnalysisOptions{}.top;
  for (std::size_t r = 0; r < kRankCount; ++r) {
    // Both sorted by rank: each rank's terminal report is the one the whole folder gives.
    EXPECT_EQ((*all)->rendered[r].rank, (*whole)->ranks[r].analyses.trace->rank);
    EXPECT_EQ((*all)->rendered[r].text,
              render_rank_text((*whole)->ranks[r], top, TextOptions{}.width))
        << r;
  }
  const std::string text = render_text(**all, top);
  EXPECT_NE(text.find((*all)->rendered.back().text), std::string::npos);
  std::filesystem::remove_all(folder);
}

// Counts the traces alive at once through the request's hook (never timing).
struct AliveCounter {
  std::mutex mutex;
  int alive = 0;
  int most = 0;
  int loaded = 0;
  void change(int delta) {
    const std::lock_guard<std::mutex> lock(mutex);
    alive += delta;
    if (delta > 0) ++loaded;
    most = std::max(most, alive);
  }
};

TEST(JobStreaming, HoldsAtMostJobsTracesAtOnce) {
  const auto folder = write_job("stream_alive");
  for (const unsigned jobs : {1U, 2U, 3U}) {
    for (const bool per_rank : {false, true}) {
      AliveCounter counter;
      AnalyzeRequest request;
      request.path = folder.string();
      request.jobs = jobs;
      request.per_rank = per_rank;
      request.on_trace_alive = [&counter](int delta) { counter.change(delta); };
      Result<ReportPtr> report = analyze(request);
      ASSERT_TRUE(report.ok()) << report.error().describe();
      EXPECT_EQ(counter.loaded, static_cast<int>(kRankCount)) << jobs;
      EXPECT_GE(counter.most, 1) << jobs;
      EXPECT_LE(counter.most, static_cast<int>(jobs)) << jobs << " per_rank " << per_rank;
      EXPECT_EQ(counter.alive, 0) << jobs;
      EXPECT_EQ((*report)->input_files.size(), kRankCount);
    }
  }
  std::filesystem::remove_all(folder);
}

TEST(JobStreaming, ABadFileStopsTheFolderWithItsNameUnlessSkipped) {
  const auto folder = write_job("stream_bad");
  testing::write_file(folder / "trace_9_broken.json", "{\"traceEvents\": [{\"ph\": \"X\", ");
  Result<ReportPtr> strict = analyze_folder(folder, true, 2);
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.error().file.find("trace_9_broken.json"), std::string::npos)
      << strict.error().describe();

  AnalyzeRequest lenient;
  lenient.path = folder.string();
  lenient.load.skip_bad = true;
  Result<ReportPtr> skipped = analyze(lenient);
  ASSERT_TRUE(skipped.ok()) << skipped.error().describe();
  ASSERT_EQ((*skipped)->traces.skipped.size(), 1U);
  EXPECT_EQ((*skipped)->input_files.size(), kRankCount);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace stepscope
