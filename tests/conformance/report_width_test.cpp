// The terminal report of every shared trace fits the width it was asked for: no line longer than
// 100 (or 80) display columns, whatever names the trace holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "render/display_width.h"
#include "stepscope/report.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

// Every trace file and every folder of traces under the shared traces, relative, sorted.
std::vector<std::string> shared_inputs() {
  namespace fs = std::filesystem;
  const fs::path root = testing::shared_traces_dir();
  std::vector<std::string> inputs;
  for (const auto& entry : fs::recursive_directory_iterator(root / "hta")) {
    const std::string name = entry.path().filename().string();
    const bool trace_file = name.ends_with(".json") || name.ends_with(".json.gz");
    if (entry.is_directory() || (entry.is_regular_file() && trace_file)) {
      inputs.push_back(fs::relative(entry.path(), root).string());
    }
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

// The first line wider than `width`, with its width, or "" when all fit.
std::string first_overflow(const std::string& text, std::size_t width) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (const std::size_t columns = render::display_width(line); columns > width) {
      return std::to_string(columns) + " columns: " + line;
    }
    start = end + 1;
  }
  return {};
}

TEST(ReportWidth, EverySharedTraceFitsOneHundredAndEightyColumns) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  std::size_t rendered = 0;
  for (const std::string& input : shared_inputs()) {
    AnalyzeRequest request;
    request.path = testing::shared_traces_dir() + "/" + input;
    request.load.threads = 1;
    request.per_rank = true;  // a folder's ranks too, not only its job
    Result<ReportPtr> report = analyze(request);
    if (!report) continue;  // folders of folders hold no trace of their own
    for (const std::size_t width : {std::size_t{100}, std::size_t{80}}) {
      const std::string text = render_text(**report, TextOptions{10, width});
      ASSERT_FALSE(text.empty()) << input;
      EXPECT_EQ(first_overflow(text, width), "") << input << " at " << width;
    }
    ++rendered;
  }
  // Most inputs are traces; a run over none would prove nothing.
  EXPECT_GE(rendered, 20U);
}

}  // namespace
}  // namespace stepscope
