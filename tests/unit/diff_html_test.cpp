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
  d.findings_resolved = {
      FindingChange{"input-bound", "The GPU waits <b>", 0, "high", "", 5, 0, {}}};
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
  d.findings_resolved = {
      FindingChange{"memory-growth", "CPU memory grows", 0, "high", "", 0, 0, {}}};
  d.findings_persisting = {
      FindingChange{"input-bound", "The GPU waits", 0, "high", "high", 0, 5'000'000, {}}};
  const std::string html = render_diff_html(d);
  EXPECT_NE(html.find("before: high, no time saved</span>"), std::string::npos) << html;
  EXPECT_NE(html.find("before: high, no time saved → after: high, likely gain 5.000 ms per step"),
            std::string::npos)
      << html;
  const std::string text = render_diff_text(d, TextOptions{10, 200});  // one line per finding
  EXPECT_NE(text.find("before high (no time saved)"), std::string::npos) << text;
  EXPECT_NE(text.find("before high (no time saved) → after high (likely gain 5.000 ms/step)"),
            std::string::npos)
      << text;
}

// A CPU-only pair: no kernel heading with nothing under it, no device columns of zeros; a
// persisting finding shows its figure on both sides, escaped.
TEST(DiffHtml, CpuPairHasNoEmptyKernelSectionAndPersistingShowsBothFigures) {
  DiffResult d;
  d.steps.before.durations_ns = {10'000'000, 11'000'000};
  d.steps.after.durations_ns = {9'000'000, 9'500'000};
  OpChange op;
  op.name = "aten::mm<x>";
  op.before_self_cpu_ns = 223'917'000;
  op.after_self_cpu_ns = 181'782'000;
  op.before_calls = 3;
  op.after_calls = 3;
  d.ops = {op};
  d.ops_total = 1;
  FindingChange persisting{"input-bound",
                           "Data loading",
                           0,
                           "high",
                           "medium",
                           5'000'000,
                           2'000'000,
                           FindingFigure{"loading <time>", "ms/step", 6.5, 2.25}};
  d.findings_persisting = {persisting};
  const std::string html = render_diff_html(d);
  EXPECT_EQ(html.find("Kernels and copies"), std::string::npos);
  EXPECT_EQ(html.find("self device"), std::string::npos);
  EXPECT_NE(html.find(">223.917 ms</td>"), std::string::npos);
  EXPECT_NE(html.find(">181.782 ms</td>"), std::string::npos);
  EXPECT_NE(html.find(">-42.135 ms</td>"), std::string::npos);
  EXPECT_NE(html.find("aten::mm&lt;x&gt;"), std::string::npos);
  EXPECT_NE(html.find("loading &lt;time&gt;: 6.500 → 2.250 ms/step"), std::string::npos) << html;
  EXPECT_NE(html.find("before: high"), std::string::npos);
  EXPECT_NE(html.find("after: medium"), std::string::npos);

  // With device time on one side, the device columns come back, and kernels get their section.
  d.ops[0].after_self_device_ns = 1'000'000;
  KernelChange kernel;
  kernel.name = "void at::native::elementwise_kernel<" + std::string(120, 'x') + ", \"tail\">";
  kernel.in_before = kernel.in_after = true;
  d.kernels = {kernel};
  d.kernels_total = 1;
  const std::string gpu = render_diff_html(d);
  EXPECT_NE(gpu.find("self device before"), std::string::npos);
  EXPECT_NE(gpu.find("<h2>Kernels and copies</h2>"), std::string::npos);
  // A long kernel name: cut in the middle in the cell, whole (and escaped) in its tooltip.
  EXPECT_NE(gpu.find("<td title=\"void at::native::elementwise_kernel&lt;" + std::string(120, 'x') +
                     ", &quot;tail&quot;&gt;\">void at::native::"),
            std::string::npos)
      << gpu;
  EXPECT_NE(gpu.find("elementwise_kernel…xxx"), std::string::npos);
  EXPECT_NE(gpu.find("xxx, &quot;tail&quot;&gt;</td>"), std::string::npos);
}

TEST(DiffHtml, NoFindingOnEitherSideSaysSo) {
  DiffResult d;
  EXPECT_NE(render_diff_html(d).find("Neither run has a finding."), std::string::npos);
}

}  // namespace
}  // namespace stepscope
