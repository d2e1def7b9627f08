// The terminal report of a whole analysis: fits its width, leaves out what a CPU trace cannot
// fill, and says in plain words what is missing and how to record it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "render/display_width.h"
#include "stepscope/report.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

constexpr const char* kLongOp =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>)";
constexpr const char* kPythonOp =
    "/home/someone/projects/very/deep/package/layout/models/transformer/attention.py(142): "
    "forward";

// A CPU-only training loop of 6 steps, with very long op names.
std::string cpu_trace_json() {
  testing::TraceFixture fixture;
  for (int s = 0; s < 6; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op(kLongOp, t0 + 10, 400);
    fixture.op(kPythonOp, t0 + 420, 300);
    fixture.op("aten::mm", t0 + 730, 200);
  }
  return fixture.json();
}

class ReportText : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("stepscope_report_text_" + std::to_string(::getpid()) + ".json");
    std::ofstream(path_) << cpu_trace_json();
    AnalyzeRequest request;
    request.path = path_.string();
    Result<ReportPtr> report = analyze(request);
    ASSERT_TRUE(report) << report.error().describe();
    report_ = std::move(report).value();
  }
  void TearDown() override { std::filesystem::remove(path_); }

  std::filesystem::path path_;
  ReportPtr report_;
};

std::size_t widest_line(const std::string& text) {
  std::size_t widest = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    widest =
        std::max(widest, render::display_width(std::string_view(text).substr(start, end - start)));
    start = end + 1;
  }
  return widest;
}

TEST_F(ReportText, FitsTheWidthItIsGiven) {
  for (const std::size_t width : {std::size_t{60}, std::size_t{80}, std::size_t{100}}) {
    const std::string text = render_text(*report_, TextOptions{10, width});
    EXPECT_LE(widest_line(text), width) << text;
  }
  // The tail of a long name is what tells it apart: it survives the cut.
  EXPECT_NE(render_text(*report_, TextOptions{10, 80}).find("(142): forward"), std::string::npos);
}

TEST_F(ReportText, CpuTraceHasNoGpuColumnsAndSaysWhatIsMissing) {
  const std::string whole = render_text(*report_, TextOptions{10, 100});
  const std::size_t missing = whole.find("not in this trace: GPU kernels");
  ASSERT_NE(missing, std::string::npos) << whole;
  // The sections before the closing line: no GPU column, no empty section.
  const std::string text = whole.substr(0, missing);
  EXPECT_EQ(text.find("GPU activities"), std::string::npos) << text;
  EXPECT_EQ(text.find("self device"), std::string::npos) << text;
  EXPECT_EQ(text.find("memcpy"), std::string::npos) << text;
  EXPECT_EQ(text.find("communication"), std::string::npos) << text;
  EXPECT_EQ(text.find("not applicable"), std::string::npos) << text;
  EXPECT_NE(whole.find("ProfilerActivity.CUDA"), std::string::npos);
  EXPECT_NE(whole.find("profile_memory=True"), std::string::npos);
}

TEST_F(ReportText, RankOriginInPlainWords) {
  const std::string text = render_text(*report_, TextOptions{10, 100});
  EXPECT_NE(text.find("rank 0 (no rank in the trace)"), std::string::npos) << text;
  EXPECT_EQ(text.find("single file without rank information"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
