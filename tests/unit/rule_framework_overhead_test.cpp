#include <gtest/gtest.h>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// CPU-only steps of 2000 µs: `ops` top-level ops of `op_us` each, `gap_us` apart (Python
// between them), from 5 µs into the step.
Trace cpu_steps(int ops, double op_us, double gap_us) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 2000.0;
    fixture.step(s, t0, 2000);
    for (int k = 0; k < ops; ++k) {
      const double ts = t0 + 5 + k * (op_us + gap_us);
      fixture.op(k % 2 == 0 ? "aten::linear" : "aten::relu", ts, op_us);
      if (k % 2 == 0) fixture.op("aten::addmm", ts + 1, op_us - 2);  // nested: not top-level
    }
  }
  return fixture.load();
}

const Finding* find(const Diagnosis& diagnosis) {
  return testing::find_finding(diagnosis, "framework-overhead");
}

TEST(RuleFrameworkOverhead, ManyTinyOpsWithPythonBetweenThemAreTheVerdict) {
  // 80 ops of 10 µs, 14 µs apart: ops cover 800 µs of the 2000 µs step, all of them tiny.
  const Trace trace = cpu_steps(80, 10, 14);
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kHostOverhead);
  EXPECT_EQ(finding->severity, Severity::kHigh);
  // Between ops: 2000 - 800 = 1200 µs; inside tiny ops: 800 µs.
  EXPECT_EQ(finding->gain.bound_ns, 2'000'000);
  EXPECT_EQ(finding->gain.likely_ns, 1'000'000);
  ASSERT_EQ(finding->evidence.size(), 4U);
  EXPECT_DOUBLE_EQ(finding->evidence[0].value, 80);  // nested addmm is not counted
  EXPECT_DOUBLE_EQ(finding->evidence[1].value, 100);
  EXPECT_DOUBLE_EQ(finding->evidence[2].value, 1.2);
  EXPECT_DOUBLE_EQ(finding->evidence[3].value, 0.8);
  ASSERT_EQ(finding->evidence[0].events.size(), 2U);
  EXPECT_EQ(finding->evidence[0].events[0].count, 160);  // 40 linear per step, 4 steps
  EXPECT_NE(finding->fix.find("torch.compile"), std::string::npos);
  EXPECT_NE(finding->fix.find("batch"), std::string::npos);
}

TEST(RuleFrameworkOverhead, CompiledModelIsToldToFindGraphBreaks) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 2000.0;
    fixture.step(s, t0, 2000);
    fixture.annotation("Torch-Compiled Region: 0/0", t0 + 2, 2);
    for (int k = 0; k < 80; ++k) fixture.op("aten::relu", t0 + 5 + k * 24, 10);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  EXPECT_NE(finding->fix.find("already runs under torch.compile"), std::string::npos)
      << finding->fix;
  EXPECT_NE(finding->fix.find("graph_breaks"), std::string::npos);
  EXPECT_EQ(finding->fix.find("then torch.compile(model)"), std::string::npos);
}

TEST(RuleFrameworkOverhead, FewLongOpsAreWorkNotOverhead) {
  // 10 ops of 190 µs: the step computes.
  EXPECT_EQ(find(testing::diagnose_trace(cpu_steps(10, 190, 5))), nullptr);
}

TEST(RuleFrameworkOverhead, ManyOpsOfRealWorkBackToBackAreNotOverhead) {
  // 70 ops of 25 µs, 1 µs apart: none is tiny, little time between them.
  EXPECT_EQ(find(testing::diagnose_trace(cpu_steps(70, 25, 1))), nullptr);
}

TEST(RuleFrameworkOverhead, GpuTracesAreLeftToTheLaunchRules) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 2000.0;
    fixture.step(s, t0, 2000);
    for (int k = 0; k < 80; ++k) fixture.op("aten::relu", t0 + 5 + k * 24, 10);
    fixture.launched_kernel("relu_kernel", t0 + 1, t0 + 10, 5);
  }
  EXPECT_EQ(find(testing::diagnose_trace(fixture.load())), nullptr);
}

TEST(RuleFrameworkOverhead, GpuRunProfiledWithoutCudaActivitiesIsNotACpuRun) {
  // deviceProperties name a GPU, but only CPU activities were recorded: the tiny ops are
  // launches onto a device the trace does not show.
  TraceFixture fixture;
  fixture.top_level("deviceProperties",
                    R"([{"id":0,"name":"Test GPU","computeMajor":9,"computeMinor":0}])");
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 2000.0;
    fixture.step(s, t0, 2000);
    for (int k = 0; k < 80; ++k) fixture.op("aten::relu", t0 + 5 + k * 24, 10);
  }
  EXPECT_EQ(find(testing::diagnose_trace(fixture.load())), nullptr);
}

TEST(RuleFrameworkOverhead, CollectiveWaitIsNotCountedAsOverhead) {
  // The same tiny ops, but the time between them is a gloo all_reduce on another thread: only
  // the 800 µs inside tiny ops remain, 40 % of the step, with the rule's 30 % still crossed.
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 2000.0;
    fixture.step(s, t0, 2000);
    for (int k = 0; k < 80; ++k) fixture.op("aten::relu", t0 + 5 + k * 24, 10);
    fixture.op("gloo:all_reduce", t0, 2000, 2);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = find(diagnosis);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->gain.bound_ns, 800'000);
}

}  // namespace
}  // namespace stepscope
