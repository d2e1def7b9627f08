#include "render/terminal/diagnosis_text.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace stepscope::render {
namespace {

// The text without the wrapping: the lines joined, each one's leading spaces dropped.
std::string unwrapped(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      line_start = true;
    } else if (!(line_start && c == ' ')) {
      out.push_back(c);
      line_start = false;
    }
  }
  return out;
}

Diagnosis one_finding(std::string fix, Evidence evidence) {
  Finding finding;
  finding.id = "launch-bound";
  finding.title = "The GPU waits for kernel launches";
  finding.fix = std::move(fix);
  finding.evidence.push_back(std::move(evidence));
  Diagnosis diagnosis;
  diagnosis.findings.push_back(std::move(finding));
  return diagnosis;
}

// A fix is advice to act on: a long one is wrapped whole, never cut in the middle.
TEST(DiagnosisText, LongFixIsWrappedWhole) {
  std::string fix;
  for (int i = 0; fix.size() < 900; ++i) fix += "step" + std::to_string(i) + " of the advice; ";
  fix += "the last words.";
  const std::string text =
      render_text(one_finding(fix, Evidence{"waits", 1.5, "ms/step", {}}), 10, 100);
  EXPECT_NE(unwrapped(text).find(fix), std::string::npos) << text;
  EXPECT_EQ(text.find("…"), std::string::npos) << text;
  // Wrapped to the width asked for.
  std::size_t longest = 0;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos;
       start = end + 1, end = text.find('\n', start)) {
    longest = std::max(longest, end - start);
  }
  EXPECT_LE(longest, 100U);
}

TEST(DiagnosisText, CountEvidenceReadsAsAWholeNumber) {
  const std::string counts =
      render_text(one_finding("fix", Evidence{"ranks in the job", 300, "count", {}}), 10, 100);
  EXPECT_NE(counts.find("ranks in the job = 300 count"), std::string::npos) << counts;
  const std::string measured =
      render_text(one_finding("fix", Evidence{"waits", 14.6531, "ms/step", {}}), 10, 100);
  EXPECT_NE(measured.find("waits = 14.653 ms/step"), std::string::npos) << measured;
}

}  // namespace
}  // namespace stepscope::render
