// The terminal report of an Nsight Systems export: its header names the exporter, and its
// "not in this trace" line gives the Nsight way to record what is missing.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "importers/nsys/nsys_reader.h"
#include "report/report_model.h"
#include "stepscope/report.h"
#include "support/nsys_fixture.h"

namespace stepscope {
namespace {

using testing::NsysFixture;
using testing::TempFolder;

std::string report_of(const NsysFixture& fixture) {
  TempFolder folder;
  const std::string file = folder.file("run.sqlite");
  fixture.write(file);
  Result<Trace> trace = nsys::read_sqlite(file, {}, nullptr);
  EXPECT_TRUE(trace.ok());
  if (!trace.ok()) return {};
  Report report;
  report.request.path = file;
  report.traces.ranks.push_back(std::move(trace).value());
  RankReport rank{analyze_rank(report.traces.ranks.front(), {}), {}};
  rank.diagnosis = diagnose(rank.analyses);
  report.ranks.push_back(std::move(rank));
  return render_text(report, TextOptions{5, 200});
}

TEST(NsysReportText, HeaderNamesTheExporterAndAdviceIsNsights) {
  NsysFixture fixture;
  for (int s = 0; s < 3; ++s) {
    fixture.range("ProfilerStep#" + std::to_string(s), s * 1000.0, 1000);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", s * 1000.0 + 1, s * 1000.0 + 10, 900);
  }
  const std::string text = report_of(fixture);
  EXPECT_NE(text.find("Nsight Systems 2024.5.1.113 (export schema 3.15.1)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("emit_nvtx(record_shapes=True)"), std::string::npos) << text;
  EXPECT_NE(text.find("--cuda-memory-usage=true"), std::string::npos) << text;
  EXPECT_NE(text.find("an NVTX range named data_loading"), std::string::npos) << text;
  EXPECT_EQ(text.find("profile_memory=True"), std::string::npos) << text;
  EXPECT_EQ(text.find("ProfilerActivity.CUDA"), std::string::npos) << text;
}

TEST(NsysReportText, AnExportWithoutGpuWorkSaysHowToRecordIt) {
  NsysFixture fixture;
  for (int s = 0; s < 3; ++s) {
    fixture.range("ProfilerStep#" + std::to_string(s), s * 1000.0, 1000);
    fixture.range("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", s * 1000.0, 10);
  }
  const std::string text = report_of(fixture);
  EXPECT_NE(text.find("nsys profile --trace=cuda,nvtx"), std::string::npos) << text;
  EXPECT_EQ(text.find("an NVTX range named data_loading"), std::string::npos) << text;
}

}  // namespace
}  // namespace stepscope
