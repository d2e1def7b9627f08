#include <gtest/gtest.h>

#include <string>

#include "stepscope/diff.h"

namespace stepscope {
namespace {

TEST(DiffHtml, VerdictChartsAndEscapedNames) {
  DiffResult d;
  d.before.path = "before<dir>";
  d.after.path = "after";
  d.steps.before.durations_ns = {10'000'000, 11'000'000, 10'500'000};
  d.steps.after.durations_ns = {5'000'000, 5'500'000};
  d.steps.verdict = Verdict::kFaster;
  d.steps.before_mean_ns = 10.5e6;
  d.steps.after_mean_ns = 5.25e6;
  d.steps.ratio_low = 0.45;
  d.steps.ratio_high = 0.55;
  d.phases_applicable = true;
  d.phases = {{"forward", 4e6, 2e6}, {"backward", 6e6, 3e6}};
  KernelChange appeared;
  appeared.name = "<script>alert(1)</script>";
  appeared.in_after = true;
  appeared.after_ns = 1e6;
  d.kernels_appeared = {appeared};
  d.kernels_appeared_total = 1;
  d.findings_resolved = {FindingChange{"input-bound", "The GPU waits <b>", 0, "high", "", 5, 0}};
  const std::string html = render_diff_html(d);
  EXPECT_NE(html.find("data-chart=\"diff-steps\" data-bars=\"5\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"diff-phases\" data-bars=\"4\""), std::string::npos);
  EXPECT_NE(html.find(">faster<"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>\"") == std::string::npos && html.find("waits <b>") == std::string::npos,
            true);
  EXPECT_NE(html.find("before&lt;dir&gt;"), std::string::npos);
  std::size_t scripts = 0;
  for (std::size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 1U);
}

// A finding that promises no time (memory growth) reads "no time saved", never a zero gain.
TEST(DiffHtml, AFindingThatSavesNoTimeSaysSo) {
  DiffResult d;
  d.findings_resolved = {FindingChange{"memory-growth", "CPU memory grows", 0, "high", "", 0, 0}};
  d.findings_persisting = {
      FindingChange{"input-bound", "The GPU waits", 0, "high", "high", 0, 5'000'000}};
  const std::string html = render_diff_html(d);
  EXPECT_NE(html.find("CPU memory grows <span class=\"note\">no time saved</span>"),
            std::string::npos);
  EXPECT_NE(html.find("likely gain 0.000 ms → 5.000 ms per step"), std::string::npos);
  const std::string text = render_diff_text(d, 10);
  EXPECT_NE(text.find("before high (no time saved)"), std::string::npos) << text;
  EXPECT_NE(text.find("before high (no time saved) → after high (likely gain 5.000 ms/step)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace stepscope
