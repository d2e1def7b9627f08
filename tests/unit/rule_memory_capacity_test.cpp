#include <gtest/gtest.h>

#include "render/terminal/diagnosis_text.h"
#include "report/report_model.h"
#include "stepscope/analysis/memory_headroom.h"
#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/report.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kSlack = 20 * kMiB;  // reserved above allocated at every record

// A GPU of 1 GiB. 100 MiB are allocated before the trace; parameters (300 MiB, aten::empty)
// before the first step; gradients (200 MiB, aten::zeros_like in backward) and optimizer state
// (100 MiB, in Optimizer.step) in step 0, never freed; every step allocates `activations` in
// the forward pass (aten::linear) and frees them in backward. With `kept_tensor`, step 1 also
// allocates 8 MiB in forward that it frees only in step 2 (an output kept for logging).
struct Recorder {
  TraceFixture fixture;
  std::int64_t allocated = 100 * kMiB;
  void record(double ts, std::uint64_t address, std::int64_t bytes) {
    allocated += bytes;
    fixture.memory(ts, address, bytes, allocated, allocated + kSlack);
  }
};

Trace training(std::int64_t activations, bool kept_tensor, bool with_device = true) {
  Recorder r;
  if (with_device) {
    r.fixture.top_level(
        "deviceProperties",
        R"([{"id":0,"name":"GPU","computeMajor":9,"computeMinor":0,"totalGlobalMem":1073741824}])");
  }
  r.fixture.op("aten::empty", 5, 20);
  r.record(10, 0xA000, 300 * kMiB);
  for (int s = 0; s < 4; ++s) {
    const double t0 = 1000.0 + 1000.0 * s;
    r.fixture.step(s, t0, 1000);
    r.fixture.launched_kernel("k", t0 + 1, t0 + 10, 900);
    r.fixture.annotation("## forward ##", t0 + 50, 350);
    if (kept_tensor && s == 2) r.record(t0 + 20, 0xE000, -8 * kMiB);
    r.fixture.op("aten::linear", t0 + 100, 50);
    if (kept_tensor && s == 1) r.record(t0 + 110, 0xE000, 8 * kMiB);
    r.record(t0 + 120, 0xB000, activations);
    r.fixture.op("autograd::engine::evaluate_function: MmBackward0", t0 + 500, 300);
    if (s == 0) {
      r.fixture.op("aten::zeros_like", t0 + 540, 20);
      r.record(t0 + 550, 0xC000, 200 * kMiB);
    }
    r.record(t0 + 600, 0xB000, -activations);
    if (s == 0) {
      r.fixture.op("Optimizer.step#AdamW.step", t0 + 820, 100);
      r.record(t0 + 850, 0xD000, 100 * kMiB);
    }
  }
  return r.fixture.load();
}

TEST(MemoryHeadroom, SplitsWhatIsLiveAtThePeakByLifetime) {
  const Trace trace = training(300 * kMiB, false);
  const RankAnalyses rank = analyze_rank(trace, {});
  ASSERT_EQ(rank.memory_headroom.devices.size(), 1U);
  const DeviceHeadroom& d = rank.memory_headroom.devices[0];
  EXPECT_EQ(d.total_bytes, 1024 * kMiB);
  EXPECT_EQ(d.peak_allocated, 1000 * kMiB);
  EXPECT_EQ(d.peak_reserved, 1020 * kMiB);
  EXPECT_EQ(d.headroom_bytes, 4 * kMiB);
  EXPECT_EQ(d.peak_op, "aten::linear");
  ASSERT_TRUE(d.peak_phase.has_value());
  EXPECT_EQ(*d.peak_phase, Phase::kForward);
  ASSERT_TRUE(d.peak_step.has_value());
  EXPECT_EQ(*d.peak_step, 1);  // step 0 has no optimizer state yet at its peak
  EXPECT_EQ(d.before_trace_bytes, 100 * kMiB);
  EXPECT_EQ(d.long_lived_bytes, 700 * kMiB);  // before the trace, parameters, grads, state
  EXPECT_EQ(d.step_scoped_bytes, 300 * kMiB);
  EXPECT_EQ(d.step_scoped_forward_bytes, 300 * kMiB);
  ASSERT_FALSE(d.long_lived_by_op.empty());
  EXPECT_EQ(d.long_lived_by_op[0].op, "aten::empty");
  EXPECT_EQ(d.long_lived_by_op[0].bytes, 300 * kMiB);
  ASSERT_EQ(d.step_scoped_by_op.size(), 1U);
  EXPECT_EQ(d.step_scoped_by_op[0].op, "aten::linear");
}

TEST(MemoryHeadroom, ATensorKeptPastTheStepEndIsLongLived) {
  const Trace trace = training(300 * kMiB, true);
  const RankAnalyses rank = analyze_rank(trace, {});
  ASSERT_EQ(rank.memory_headroom.devices.size(), 1U);
  const DeviceHeadroom& d = rank.memory_headroom.devices[0];
  EXPECT_EQ(*d.peak_step, 1);
  // Allocated in step 1's forward pass like the activations, but freed only in step 2.
  EXPECT_EQ(d.long_lived_bytes, 708 * kMiB);
  EXPECT_EQ(d.step_scoped_bytes, 300 * kMiB);
}

TEST(MemoryHeadroom, UnknownDeviceMemoryGivesNoHeadroom) {
  const Trace trace = training(300 * kMiB, false, false);
  const RankAnalyses rank = analyze_rank(trace, {});
  EXPECT_TRUE(rank.memory_headroom.devices.empty());
  const Diagnosis diagnosis = diagnose(rank);
  EXPECT_EQ(testing::find_finding(diagnosis, "memory-capacity"), nullptr);
  EXPECT_EQ(render::render_text(diagnosis, 10).find("memory headroom"), std::string::npos);
}

TEST(RuleMemoryCapacity, FiresNearTheLimitWithTheLargerPartFirstInTheFix) {
  const Diagnosis diagnosis = testing::diagnose_trace(training(300 * kMiB, false));
  const Finding* finding = testing::find_finding(diagnosis, "memory-capacity");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kHigh);  // under half the margin
  EXPECT_EQ(finding->part, StepPart::kForward);
  EXPECT_NE(finding->title.find("GPU 0"), std::string::npos);
  // Long-lived memory (700 MiB) outweighs the activations (300 MiB): sharding comes first.
  EXPECT_LT(finding->fix.find("FSDP"), finding->fix.find("expandable_segments"));
  EXPECT_EQ(finding->fix.find("autocast"), std::string::npos);
  EXPECT_EQ(finding->gain.likely_ns, 0);
  // Under half the margin it outranks the time findings and names the bottleneck.
  EXPECT_EQ(diagnosis.findings.front().id, "memory-capacity");
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kMemoryCapacity);
  EXPECT_NE(diagnosis.summary.find("close to out-of-memory"), std::string::npos);
  const std::string text = render::render_text(diagnosis, 10);
  EXPECT_NE(text.find("memory headroom: GPU 0 peak 1020.00 MiB reserved"), std::string::npos)
      << text;
}

TEST(RuleMemoryCapacity, BetweenHalfTheMarginAndTheMarginItIsAdviceNotTheVerdict) {
  // 700 MiB long-lived + 230 MiB activations + 20 MiB reserved on top: 74 MiB (7.2 %) free.
  const Diagnosis diagnosis = testing::diagnose_trace(training(230 * kMiB, false));
  const Finding* finding = testing::find_finding(diagnosis, "memory-capacity");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kMedium);
  EXPECT_EQ(diagnosis.summary.find("close to out-of-memory"), std::string::npos);
}

TEST(RuleMemoryCapacity, ActivationHeavyPeakAdvisesAutocastAndCheckpointing) {
  // 1000 MiB of activations over 100 MiB allocated before the trace: the peak needs more than
  // the device, the headroom is negative.
  Recorder r;
  r.fixture.top_level(
      "deviceProperties",
      R"([{"id":0,"name":"GPU","computeMajor":9,"computeMinor":0,"totalGlobalMem":1073741824}])");
  r.fixture.step(0, 0, 1000);
  r.fixture.annotation("## forward ##", 10, 300);
  r.fixture.op("aten::gelu", 50, 20);
  r.record(60, 0xB000, 1000 * kMiB);
  r.record(600, 0xB000, -1000 * kMiB);
  const Diagnosis diagnosis = testing::diagnose_trace(r.fixture.load());
  const Finding* finding = testing::find_finding(diagnosis, "memory-capacity");
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fix.find("torch.autocast"), std::string::npos);
  EXPECT_NE(finding->fix.find("torch.utils.checkpoint"), std::string::npos);
  ASSERT_EQ(diagnosis.memory_headroom.size(), 1U);
  EXPECT_LT(diagnosis.memory_headroom[0].headroom_bytes, 0);
  EXPECT_EQ(diagnosis.memory_headroom[0].step_scoped_bytes, 1000 * kMiB);
}

TEST(RuleMemoryCapacity, SilentWithRoomButTheHeadroomIsShown) {
  const Diagnosis diagnosis = testing::diagnose_trace(training(100 * kMiB, false));
  EXPECT_EQ(testing::find_finding(diagnosis, "memory-capacity"), nullptr);
  ASSERT_EQ(diagnosis.memory_headroom.size(), 1U);
  // 800 MiB allocated + 20 MiB reserved on top: 204 MiB of 1024 free.
  EXPECT_EQ(diagnosis.memory_headroom[0].headroom_bytes, 204 * kMiB);
  EXPECT_NEAR(diagnosis.memory_headroom[0].headroom_share, 204.0 / 1024.0, 1e-12);
  EXPECT_NE(render::render_text(diagnosis, 10).find("memory headroom: GPU 0"), std::string::npos);
}

TEST(RuleMemoryCapacity, TheHtmlVerdictShowsTheHeadroomWithTheOpEscaped) {
  Recorder r;
  r.fixture.top_level(
      "deviceProperties",
      R"([{"id":0,"name":"GPU","computeMajor":9,"computeMinor":0,"totalGlobalMem":1073741824}])");
  r.fixture.step(0, 0, 1000);
  r.fixture.op("<img src=x onerror=alert(1)>", 50, 20);
  r.record(60, 0xB000, 900 * kMiB);
  r.record(600, 0xB000, -900 * kMiB);
  Report report;
  report.traces.ranks.push_back(r.fixture.load());
  RankReport rank{analyze_rank(report.traces.ranks.front(), {}), {}};
  rank.diagnosis = diagnose(rank.analyses);
  report.ranks.push_back(std::move(rank));
  const std::string html = render_html(report, 10);
  const std::size_t line = html.find("<p class=\"headroom\">memory headroom: GPU 0");
  ASSERT_NE(line, std::string::npos);
  const std::string headroom = html.substr(line, html.find("</p>", line) - line);
  EXPECT_NE(headroom.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << headroom;
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
