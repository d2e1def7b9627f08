// The HTML report: everything from a trace is inert text, and the charts draw what the
// analyses hold.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "render/html/html_escape.h"
#include "render/html/roofline_chart.h"
#include "report/report_model.h"
#include "support/text_count.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

std::size_t count(const std::string& text, const std::string& needle) {
  return testing::occurrences(text, needle);
}

Report report_of(const TraceFixture& fixture) {
  Report report;
  report.request.path = "<b>trace</b>.json";
  report.traces.ranks.push_back(fixture.load());
  for (const Trace& trace : report.traces.ranks) {
    RankReport rank{analyze_rank(trace, {}), {}};
    rank.diagnosis = diagnose(rank.analyses);
    report.ranks.push_back(std::move(rank));
  }
  return report;
}

// Five steps, each with a hostile op launching a hostile kernel, and memory records.
TraceFixture hostile_trace() {
  TraceFixture fixture;
  for (int s = 0; s < 5; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("<img src=x onerror=alert(1)>", t0 + 1, 50);
    fixture.launched_kernel("<script>alert(1)</script>", t0 + 2, t0 + 10, 700);
    fixture.memory(t0 + 5, 0x1000 + s, 1 << 20, (s + 1) << 20, 4 << 20);
  }
  return fixture;
}

TEST(HtmlEscape, MarkupQuotesControlsAndBadUtf8BecomeText) {
  EXPECT_EQ(render::html::escape("<script>alert('x')</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(render::html::escape("a\"b&c"), "a&quot;b&amp;c");
  EXPECT_EQ(render::html::escape(std::string("x\x01y\xff", 4)), "x\xef\xbf\xbdy\xef\xbf\xbd");
  EXPECT_EQ(render::html::escape("µs 📈"), "µs 📈");
}

TEST(HtmlReport, NothingFromTheTraceReachesTheHtmlUnescaped) {
  const Report report = report_of(hostile_trace());
  const std::string html = render_html(report, 10);
  // Ours: the timeline's data and drawing script, and the table sorter.
  EXPECT_EQ(count(html, "<script"), 3U);
  EXPECT_EQ(count(html, "<script type=\"application/json\""), 1U);
  EXPECT_EQ(count(html, "<img"), 0U);
  EXPECT_EQ(count(html, "<b>trace"), 0U);
  EXPECT_GT(count(html, "&lt;b&gt;trace&lt;/b&gt;.json"), 0U);
  EXPECT_GT(count(html, "&lt;script&gt;alert(1)&lt;/script&gt;"), 0U);
  EXPECT_GT(count(html, "&lt;img src=x onerror=alert(1)&gt;"), 0U);
  // Self-contained: nothing fetched from anywhere.
  EXPECT_EQ(count(html, "http://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(html, "https://"), 0U);
  EXPECT_EQ(count(html, "src=\""), 0U);
  EXPECT_EQ(count(html, "<link"), 0U);
}

TEST(HtmlReport, WhatTheImportDroppedIsSaidOnThePage) {
  // An op with a negative duration (skipped) and a step that starts before the last one ends.
  TraceFixture fixture;
  fixture.step(1, 0, 100).step(2, 60, 100).op("aten::mm", 10, 20).op("aten::neg", 70, -5);
  const std::string html = render_html(report_of(fixture), 10);
  EXPECT_NE(html.find("skipped 1 complete events without ts/dur or with dur &lt; 0"),
            std::string::npos);
  EXPECT_NE(html.find("note: ProfilerStep#2 starts 40.0 µs before ProfilerStep#1 ends"),
            std::string::npos);
  // A whole trace says neither.
  const std::string whole = render_html(report_of(hostile_trace()), 10);
  EXPECT_EQ(whole.find("skipped"), std::string::npos);
  EXPECT_EQ(whole.find("starts before"), std::string::npos);
}

TEST(HtmlReport, AHugeTopAndHugeNamesKeepThePageBounded) {
  TraceFixture fixture;
  fixture.step(1, 0, 100'000);
  const std::string huge(5000, 'n');
  fixture.op(huge, 1, 50);
  for (int k = 0; k < 1500; ++k) fixture.op("op_" + std::to_string(k), 60 + k * 60.0, 50);
  const std::string html = render_html(report_of(fixture), 100'000);
  EXPECT_NE(html.find("The first 1000 ops of 150"), std::string::npos)
      << html.substr(html.find("The first"), 80);
  EXPECT_LE(count(html, "<tr><td>op_"), 1000U);
  EXPECT_EQ(html.find(huge), std::string::npos);                            // never whole
  EXPECT_NE(html.find(huge.substr(0, 512) + "\u2026"), std::string::npos);  // cut and marked
  EXPECT_LE(count(html, "class=\"bar\""), 50U * 2);  // two bar charts at most
}

TEST(HtmlReport, ChartsDrawOneBarPerStepAndTheMemoryCurve) {
  const Report report = report_of(hostile_trace());
  const std::string html = render_html(report, 10);
  const std::size_t kept = report.ranks[0].analyses.steps.kept().size();
  ASSERT_GT(kept, 2U);
  EXPECT_NE(html.find("data-chart=\"step-time\" data-bars=\"" + std::to_string(kept) + "\""),
            std::string::npos);
  EXPECT_NE(html.find("data-chart=\"memory-GPU 0\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"gpu-busy\" data-bars=\"400\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"top-kernels-"), std::string::npos);
  // Every bar says what it is, with its unit.
  const std::regex bar_title("<rect class=\"bar\"[^>]*><title>#[0-9]+: [0-9.]+ ms</title>");
  EXPECT_TRUE(std::regex_search(html, bar_title));
}

TEST(HtmlReport, LongRunsAreGroupedNotDumped) {
  TraceFixture fixture;
  for (int s = 0; s < 500; ++s) {
    fixture.step(s, s * 100.0, 100);
    fixture.launched_kernel("k", s * 100.0 + 1, s * 100.0 + 5, 80);
  }
  const std::string html = render_html(report_of(fixture), 10);
  std::smatch bars;
  ASSERT_TRUE(
      std::regex_search(html, bars, std::regex("data-chart=\"step-time\" data-bars=\"([0-9]+)\"")));
  EXPECT_LE(std::stoi(bars[1]), 120);
  EXPECT_NE(html.find("drawn as"), std::string::npos);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

TEST(HtmlReport, ManyRanksDrawRankZeroAndTheSlowestAndListThemAll) {
  Report report;
  report.request.path = "job/";
  for (int r = 0; r < 10; ++r) {
    testing::TraceFixture fixture;
    fixture.top_level("distributedInfo", "{\"rank\":" + std::to_string(r) + ",\"world_size\":10}");
    const double step = r == 7 ? 3000.0 : 1000.0;  // rank 7 is the straggler
    for (int s = 0; s < 3; ++s) {
      fixture.step(s, s * step, step);
      fixture.launched_kernel("k", s * step + 1, s * step + 5, step / 2);
    }
    report.traces.ranks.push_back(fixture.load());
  }
  for (const Trace& trace : report.traces.ranks) {
    RankReport rank{analyze_rank(trace, {}), {}};
    rank.diagnosis = diagnose(rank.analyses);
    report.ranks.push_back(std::move(rank));
  }
  const std::string html = render_html(report, 5);
  EXPECT_EQ(count(html, "<section class=\"rank\""), 4U);
  EXPECT_NE(html.find("id=\"rank-0\""), std::string::npos);
  EXPECT_NE(html.find("id=\"rank-7\""), std::string::npos);
  const std::string table = html.substr(html.find("id=\"ranks\""));
  EXPECT_EQ(count(table.substr(0, table.find("</table>")), "<tr>"), 11U);
}

// Two ranks of three CPU-only steps (no kernel), or with one kernel per step.
Report two_ranks(bool gpu) {
  Report report;
  report.request.path = "job";
  for (int r = 0; r < 2; ++r) {
    TraceFixture fixture;
    for (int s = 0; s < 3; ++s) {
      fixture.step(s, s * 1000.0, 1000);
      fixture.op("aten::mm", s * 1000.0 + 1, 900);
      if (gpu) fixture.launched_kernel("k", s * 1000.0 + 2, s * 1000.0 + 8, 500);
    }
    report.traces.ranks.push_back(fixture.load());
  }
  for (const Trace& trace : report.traces.ranks) {
    RankReport rank{analyze_rank(trace, {}), {}};
    rank.diagnosis = diagnose(rank.analyses);
    report.ranks.push_back(std::move(rank));
  }
  return report;
}

TEST(HtmlReport, CpuOnlyRanksHaveNoGpuColumnOrCharts) {
  const std::string cpu = render_html(two_ranks(false), 5);
  EXPECT_NE(cpu.find("id=\"ranks\""), std::string::npos);
  EXPECT_EQ(cpu.find("GPU busy"), std::string::npos);
  EXPECT_EQ(cpu.find("Top kernels"), std::string::npos);
  const std::string gpu = render_html(two_ranks(true), 5);
  EXPECT_NE(gpu.find("GPU busy (busiest device)"), std::string::npos);
}

// One CPU-only rank: nothing on the page suggests a GPU (device roles in the breakdown legend,
// a self-device column of zeros, a reserved-memory figure the CPU allocator never has).
TEST(HtmlReport, CpuOnlyRankShowsNoGpuOnlyLines) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    fixture.step(s, s * 1000.0, 1000);
    fixture.op("aten::mm", s * 1000.0 + 1, 900);
    fixture.memory(s * 1000.0 + 5, 0x1000 + s, 1 << 20, (s + 1) << 20, 0, 0, -1);
  }
  std::string html = render_html(report_of(fixture), 10);
  // What a reader sees: the timeline's embedded data names every event class it may draw.
  html = std::regex_replace(html, std::regex("<script[^>]*>[^<]*</script>"), "<script></script>");
  EXPECT_NE(html.find("data-chart=\"step-breakdown\""), std::string::npos);
  for (const char* gpu_only : {"GPU busy", "memset", "memcpy", "self device", "peak reserved",
                               "Top kernels", "GPU time"}) {
    EXPECT_EQ(html.find(gpu_only), std::string::npos) << gpu_only;
  }
  EXPECT_NE(html.find("Top ops by self CPU time (total over 4 kept steps)"), std::string::npos);
  // The memory curve marks where each kept step starts.
  EXPECT_EQ(count(html, "<line class=\"marker\""), 5U);  // 4 starts and the last end
  EXPECT_NE(html.find("<title>step #1 starts</title>"), std::string::npos);
}

// GPU charts speak per kept step, like the diagnosis, and totals say what they total.
TEST(HtmlReport, GpuChartsSayPerStepOrTotalOverKeptSteps) {
  const Report report = report_of(hostile_trace());
  const std::string html = render_html(report, 10);
  const std::size_t kept = report.ranks[0].analyses.steps.kept().size();
  EXPECT_NE(html.find(fmt::format("GPU time per step (mean of {} kept steps)", kept)),
            std::string::npos);
  EXPECT_NE(html.find(fmt::format("(total over {} kept steps)", kept)), std::string::npos);
  // The compute bar of GPU 0 is a per-step figure (700 µs kernels), not the window's total.
  EXPECT_NE(html.find("<title>GPU 0 · compute: 0.7 ms</title>"), std::string::npos) << html;
}

// Two kernels with one long head stay apart in the ranked bars; the full name is the tooltip.
TEST(HtmlReport, RankedBarsCutLongNamesInTheMiddle) {
  const std::string head = "void at::native::vectorized_elementwise_kernel<4, at::native::";
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel(head + "CUDAFunctor_add<float>>", t0 + 1, t0 + 10, 300);
    fixture.launched_kernel(head + "CUDAFunctor_mul<float>>", t0 + 20, t0 + 400, 200);
  }
  const std::string html = render_html(report_of(fixture), 10);
  const std::regex add_label(
      "</title>void at::native::[^<]*…[^<]*CUDAFunctor_add&lt;float&gt;&gt;</text>");
  const std::regex mul_label(
      "</title>void at::native::[^<]*…[^<]*CUDAFunctor_mul&lt;float&gt;&gt;</text>");
  EXPECT_TRUE(std::regex_search(html, add_label)) << html;
  EXPECT_TRUE(std::regex_search(html, mul_label));
  EXPECT_NE(html.find("<title>" + render::html::escape(head) +
                      "CUDAFunctor_add&lt;float&gt;&gt;</title>"),
            std::string::npos);
}

// Steps with one bf16 aten::mm [64, 1024] x [1024, 1024] whose kernel runs on an H100.
TraceFixture matmul_trace(bool on_gpu) {
  TraceFixture f;
  if (on_gpu) {
    f.top_level("deviceProperties", R"([{"id":0,"name":"NVIDIA H100 80GB HBM3"}])");
  }
  const std::string mm =
      R"("Input Dims": [[64, 1024], [1024, 1024]], "Input type": ["c10::BFloat16", )"
      R"("c10::BFloat16"])";
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    f.step(s, t0, 1000);
    f.op("aten::mm", t0 + 10, 100, 1, -1, mm);
    if (on_gpu) f.launched_kernel("sm90_xmma_gemm_bf16", t0 + 20, t0 + 30, 400);
  }
  return f;
}

TEST(HtmlReport, TheRooflineDrawsTheRoofAndOneDotPerTopOp) {
  const std::string html = render_html(report_of(matmul_trace(true)), 5);
  EXPECT_NE(html.find("data-chart=\"roofline\" data-bars=\"1\""), std::string::npos);
  EXPECT_EQ(count(html, "<polyline class=\"roof\""), 1U);
  EXPECT_NE(html.find("<title>aten::mm (c10::BFloat16): "), std::string::npos);
  EXPECT_NE(html.find("memory_bound</title>"), std::string::npos);  // intensity 62 < 295

  const std::string cpu = render_html(report_of(matmul_trace(false)), 5);
  EXPECT_EQ(cpu.find("data-chart=\"roofline\""), std::string::npos);
  EXPECT_NE(cpu.find("No roofline: the trace has no GPU activity"), std::string::npos);
}

TEST(HtmlReport, RooflineEscapesTheOpNameInItsTitle) {
  ComputeEfficiencyResult e;
  e.applicable = true;
  e.device_name = "NVIDIA H100 <i>";
  e.dtype = "c10::BFloat16";
  e.peak_tflops = 989.4;
  e.peak_bandwidth_gbps = 3350;
  e.ridge_point = 989.4e3 / 3350;
  OpFlops op;
  op.name = "<script>alert(1)</script>";
  op.dtype = "c10::BFloat16";
  op.intensity = 40;
  op.achieved_tflops = 50;
  op.bound = "memory_bound";
  e.ops.push_back(op);
  const std::string html = render::html::roofline_section(e, 5);
  EXPECT_NE(html.find("<title>&lt;script&gt;alert(1)&lt;/script&gt; (c10::BFloat16)"),
            std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
  EXPECT_NE(html.find("NVIDIA H100 &lt;i&gt;"), std::string::npos);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

// A finding that saves no step time (memory growing every step) says so in words on the page.
TEST(HtmlReport, AFindingThatSavesNoTimeSaysSoInWords) {
  testing::TraceFixture fixture;
  std::int64_t allocated = 0;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("aten::mul", t0 + 150, 20);
    allocated += 8 << 20;
    fixture.memory(t0 + 160, 0x100000 + s * 0x1000, 8 << 20, allocated, 0, 0, -1);
  }
  const std::string html = render_html(report_of(fixture), 10);
  ASSERT_NE(html.find("memory grows"), std::string::npos);
  EXPECT_NE(html.find("<b>Expected gain:</b> no time saved; avoids running out of memory."),
            std::string::npos);
  EXPECT_EQ(html.find("<b>Expected gain:</b> 0"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
