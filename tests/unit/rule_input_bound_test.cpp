#include <gtest/gtest.h>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// Steps of 1000 µs: the DataLoader takes `loader_us` at the start of each, then one kernel
// runs until 990 µs.
Trace steps_with_loader(double loader_us) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(10 + s, t0, 1000);
    fixture.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, loader_us);
    fixture.op("aten::mm", t0 + loader_us, 20);
    fixture.launched_kernel("ampere_sgemm_128x64_tn", t0 + loader_us + 1, t0 + loader_us + 10,
                            990 - loader_us - 10);
  }
  return fixture.load();
}

const Finding* find(const Diagnosis& diagnosis, const std::string& id) {
  return testing::find_finding(diagnosis, id);
}

TEST(RuleInputBound, PlantedLoaderWaitIsTheVerdictWithItsGain) {
  const Trace trace = steps_with_loader(600);
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* finding = find(diagnosis, "input-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kInputPipeline);
  EXPECT_EQ(diagnosis.part, StepPart::kDataLoading);
  EXPECT_EQ(finding->severity, Severity::kHigh);
  // The GPU is idle for the whole 600 µs DataLoader span of each 1000 µs step.
  EXPECT_EQ(finding->gain.bound_ns, 600'000);
  EXPECT_EQ(finding->gain.likely_ns, 480'000);
  EXPECT_NEAR(finding->gain.bound_share, 0.6, 1e-9);
  ASSERT_FALSE(finding->evidence.empty());
  ASSERT_EQ(finding->evidence[0].events.size(), 1U);
  EXPECT_EQ(finding->evidence[0].events[0].count, 4);
  EXPECT_EQ(finding->evidence[0].events[0].steps.size(), 4U);
  EXPECT_NE(finding->fix.find("num_workers"), std::string::npos);
}

TEST(RuleInputBound, ShortLoaderWaitIsHealthy) {
  const Trace trace = steps_with_loader(10);
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  EXPECT_EQ(find(diagnosis, "input-bound"), nullptr);
  EXPECT_EQ(diagnosis.bottleneck, Bottleneck::kHealthy);
  EXPECT_FALSE(diagnosis.limited_by.empty());
}

TEST(RuleInputBound, LoaderHiddenBehindGpuWorkIsNotAFinding) {
  // The DataLoader runs while a long kernel from the previous launch keeps the GPU busy.
  TraceFixture fixture;
  for (int s = 0; s < 3; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.launched_kernel("gemm", t0 + 1, t0 + 8, 985);
    fixture.op("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", t0 + 10, 500);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  EXPECT_EQ(find(diagnosis, "input-bound"), nullptr);
}

TEST(RuleInputBound, WorkersAlreadyInUseChangeTheAdviceAndTheGain) {
  TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 1000.0;
    fixture.step(s, t0, 1000);
    fixture.op("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", t0, 600);
    fixture.launched_kernel("gemm", t0 + 601, t0 + 610, 380);
  }
  const Diagnosis diagnosis = testing::diagnose_trace(fixture.load());
  const Finding* finding = find(diagnosis, "input-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->gain.bound_ns, 600'000);
  EXPECT_EQ(finding->gain.likely_ns, 180'000);  // 30 %: more workers need free cores
  EXPECT_NE(finding->fix.find("already uses worker processes"), std::string::npos);
  EXPECT_EQ(finding->fix.find("num_workers=<CPU cores"), std::string::npos);
}

}  // namespace
}  // namespace stepscope

namespace stepscope {
namespace {

TEST(RuleInputBound, ATinyStepsFewMicrosecondsOfLoadingAreNotAFinding) {
  // 60 µs of a 600 µs CPU step: 10 % of it, but under the 100 µs a DataLoader setting can save.
  testing::TraceFixture fixture;
  for (int s = 0; s < 4; ++s) {
    const double t0 = s * 600.0;
    fixture.step(s, t0, 600);
    fixture.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0, 60);
    fixture.op("aten::mm", t0 + 70, 500);
  }
  const Diagnosis small = testing::diagnose_trace(fixture.load());
  EXPECT_EQ(testing::find_finding(small, "input-bound"), nullptr);
}

}  // namespace
}  // namespace stepscope
