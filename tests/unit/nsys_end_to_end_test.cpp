// Nsight Systems exports through the front door: `analyze` on an export, on a folder of exports
// (one per rank), and the errors it gives for files that are no export.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/report_model.h"
#include "stepscope/report.h"
#include "support/nsys_fixture.h"

namespace stepscope {
namespace {

using testing::NsysFixture;
using testing::TempFolder;

Result<ReportPtr> analyze_path(const std::string& path) {
  AnalyzeRequest request;
  request.path = path;
  return analyze(request);
}

// 50 tiny kernels per step, each launched 19 µs apart and running 4 µs: launch-bound.
NsysFixture launch_bound_loop() {
  NsysFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.range("train_step", t0, 1000);
    for (int k = 0; k < 50; ++k) {
      const double call = t0 + 2 + k * 19.0;
      fixture.launched_kernel("vectorized_elementwise_kernel", call, call + 6, 4);
    }
  }
  return fixture;
}

TEST(NsysEndToEnd, AnalyzeReadsAnExportAndNotesItsSteps) {
  TempFolder folder;
  const std::string file = folder.file("run.sqlite");
  launch_bound_loop().write(file);
  Result<ReportPtr> report = analyze_path(file);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  const Report& r = **report;
  ASSERT_EQ(r.ranks.size(), 1U);
  EXPECT_EQ(r.ranks[0].analyses.trace->origin.format, TraceFormat::kNsightSqlite);
  EXPECT_EQ(r.ranks[0].analyses.steps.kept().size(), 3U);
  ASSERT_FALSE(r.ranks[0].diagnosis.findings.empty());
  EXPECT_EQ(r.ranks[0].diagnosis.findings.front().id, "launch-bound");
  const bool noted =
      std::any_of(r.traces.notes.begin(), r.traces.notes.end(), [](const std::string& note) {
        return note.find("\"train_step\" were taken as steps") != std::string::npos;
      });
  EXPECT_TRUE(noted);
  const std::string text = render_text(r, TextOptions{5, 200});
  EXPECT_NE(text.find("Nsight Systems"), std::string::npos);
}

TEST(NsysEndToEnd, AnSqliteFileThatIsNoExportExitsWithTheMissingTables) {
  TempFolder folder;
  const std::string file = folder.file("app.db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  Result<ReportPtr> report = analyze_path(file);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.error().kind, ErrorKind::kNotTrace);
  EXPECT_EQ(report.error().file, file);
  EXPECT_NE(report.error().message.find("no table StringIds"), std::string::npos)
      << report.error().message;
}

// One rank of a data-parallel job on the CPU (gloo), as NVTX ranges: a forward range, the
// backward op, and one all_reduce per step that ends on every rank when the slowest arrives.
void write_rank(const std::string& file, double forward_us, double slowest_us) {
  NsysFixture f;
  const double backward_us = 500;
  const double transfer_us = 200;
  const double step_us = slowest_us + backward_us + transfer_us + 100;
  for (int k = 0; k < 6; ++k) {
    const double s = 1'000'000 + k * step_us;
    f.range("ProfilerStep#" + std::to_string(k + 1), s, step_us - 10);
    f.range("## forward ##", s + 5, forward_us - 10);
    f.range("aten::linear, seq = 1", s + 10, forward_us - 30);
    f.range("autograd::engine::evaluate_function: AddmmBackward0", s + forward_us,
            backward_us - 10);
    const double arrival = s + forward_us + backward_us;
    const double end = s + slowest_us + backward_us + transfer_us;
    f.range("gloo:all_reduce", arrival, end - arrival, 2);
    f.range("c10d::allreduce_", arrival - 5, 3);
  }
  f.write(file);
}

TEST(NsysEndToEnd, AFolderOfExportsNamesTheStragglerRank) {
  TempFolder folder;
  const std::vector<double> forward = {1000, 1000, 3000, 1000};
  for (std::size_t r = 0; r < forward.size(); ++r) {
    write_rank(folder.file("rank" + std::to_string(r) + ".sqlite"), forward[r], 3000);
  }
  Result<ReportPtr> report = analyze_path(folder.path().string());
  ASSERT_TRUE(report.ok()) << report.error().describe();
  const Report& r = **report;
  ASSERT_TRUE(r.job.has_value());
  ASSERT_EQ(r.job->ranks.size(), 4U);
  ASSERT_EQ(r.job->stragglers.size(), 1U);
  EXPECT_EQ(r.job->stragglers.front().rank, 2);
  EXPECT_NE(r.job->verdict.find("rank 2"), std::string::npos) << r.job->verdict;
}

}  // namespace
}  // namespace stepscope
