#include <gtest/gtest.h>

#include "stepscope/analysis/rank_analyses.h"
#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// An inference server's trace: no ProfilerStep#N; each request is an `execute_model`
// annotation holding a few ops and kernels, with idle time between requests.
Trace server_trace(int requests) {
  TraceFixture fixture;
  for (int r = 0; r < requests; ++r) {
    const double t0 = r * 5000.0;
    fixture.annotation("execute_model", t0, 1000);
    fixture.op("aten::linear", t0 + 10, 100);
    fixture.launched_kernel("gemm", t0 + 20, t0 + 30, 400);
    fixture.op("aten::softmax", t0 + 500, 50);
    fixture.launched_kernel("softmax_kernel", t0 + 510, t0 + 520, 100);
    fixture.annotation("log_request", t0 + 900, 20);  // repeats too, but holds no ops
  }
  return fixture.load();
}

AnalysisOptions inferring() {
  AnalysisOptions options;
  options.infer_iterations = true;
  return options;
}

TEST(Iterations, RepeatedTopLevelRegionBecomesTheSteps) {
  const Trace trace = server_trace(5);
  const RankAnalyses rank = analyze_rank(trace, inferring());
  EXPECT_EQ(rank.steps.window_source, StepsResult::WindowSource::kRepeatedRegion);
  EXPECT_EQ(rank.steps.region, "execute_model");
  ASSERT_EQ(rank.steps.kept().size(), 5U);
  EXPECT_EQ(rank.steps.steps[1].number, 1);
  EXPECT_EQ(rank.step_time.duration_ns.count, 5U);
  // The idle time between requests is not in any step.
  EXPECT_EQ(rank.steps.steps[0].duration_ns(), 1'000'000);
  // The figures keep the peers' view; the diagnosis infers the same steps on its own.
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  EXPECT_NE(diagnosis.bottleneck, Bottleneck::kUndetermined);
  EXPECT_NE(diagnosis.window.find("5 repetitions of 'execute_model'"), std::string::npos);
}

TEST(Iterations, FiguresKeepThePeersView) {
  const Trace trace = server_trace(3);
  AnalysisOptions hta = inferring();
  hta.mode = Mode::kCompatHta;
  EXPECT_TRUE(analyze_rank(trace, hta).steps.steps.empty());
  const RankAnalyses rank = analyze_rank(trace, {});
  EXPECT_TRUE(rank.steps.steps.empty());
  EXPECT_EQ(rank.steps.window_source, StepsResult::WindowSource::kGpuActivitySpan);
}

TEST(Iterations, WithoutARepeatedRegionTheWholeTraceIsOneStep) {
  TraceFixture fixture;
  fixture.op("aten::linear", 100, 200);
  fixture.launched_kernel("gemm", 110, 120, 500);
  fixture.op("aten::relu", 400, 50);
  const Trace trace = fixture.load();
  const RankAnalyses rank = analyze_rank(trace, inferring());
  EXPECT_EQ(rank.steps.window_source, StepsResult::WindowSource::kWholeTrace);
  ASSERT_EQ(rank.steps.kept().size(), 1U);
  // From the first host op (100 µs) to the end of the kernel (620 µs).
  EXPECT_EQ(rank.steps.steps[0].start_ns, 100'000);
  EXPECT_EQ(rank.steps.steps[0].end_ns, 620'000);
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  EXPECT_NE(diagnosis.bottleneck, Bottleneck::kUndetermined);
  EXPECT_NE(diagnosis.window.find("whole trace"), std::string::npos);
}

TEST(Iterations, ARegionHoldingFewOfTheOpsIsNotTheIteration) {
  TraceFixture fixture;
  for (int r = 0; r < 4; ++r) {
    const double t0 = r * 1000.0;
    fixture.annotation("log_metrics", t0, 50);
    fixture.op("aten::item", t0 + 10, 5);
    for (int k = 0; k < 5; ++k) fixture.op("aten::mm", t0 + 100 + k * 100, 50);
  }
  const Trace trace = fixture.load();
  const RankAnalyses rank = analyze_rank(trace, inferring());
  EXPECT_EQ(rank.steps.window_source, StepsResult::WindowSource::kWholeTrace);
}

TEST(Iterations, EmptyTraceIsUndetermined) {
  TraceFixture fixture;
  fixture.raw_event(R"({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "x"}})");
  const Trace trace = fixture.load();
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kUndetermined);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

TEST(Iterations, CpuRulesReadEveryThreadOfAWholeTraceStep) {
  // A CPU-only script without steps: 100 tiny ops with the host's time between them. The whole
  // trace is one step with no ProfilerStep# event, so the rules' "step thread" is every thread.
  testing::TraceFixture fixture;
  for (int k = 0; k < 100; ++k) fixture.op("aten::add", k * 20.0, 5);
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  EXPECT_NE(testing::find_finding(diagnosis, "framework-overhead"), nullptr);
}

}  // namespace
}  // namespace stepscope
