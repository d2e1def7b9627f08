#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepscope/diagnosis/diagnose.h"
#include "support/findings.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

// Steps of 1000 µs: the DataLoader takes `loader_us` at the start of each, then one kernel
// runs until 990 µs. `host`: the `stepscope_host` metadata, none if empty.
Trace steps_with_loader(double loader_us, const std::string& host = "") {
  TraceFixture fixture;
  if (!host.empty()) fixture.top_level("stepscope_host", host);
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
  // Replayed with each batch ready at once, the kernel is launched 600 µs earlier: all of it.
  EXPECT_EQ(finding->gain.likely_ns, 600'000);
  EXPECT_NE(finding->gain.method.find("DataLoader ready at once"), std::string::npos);
  EXPECT_NEAR(finding->gain.bound_share, 0.6, 1e-9);
  ASSERT_FALSE(finding->evidence.empty());
  ASSERT_EQ(finding->evidence[0].events.size(), 1U);
  EXPECT_EQ(finding->evidence[0].events[0].count, 4);
  EXPECT_EQ(finding->evidence[0].events[0].steps.size(), 4U);
  EXPECT_NE(finding->fix.find("num_workers"), std::string::npos);
}

// What `stepscope run` samples: 200 samples inside the fetch, 150 in a decode function (first
// line 20, busiest at 24), 46 in collate, 3 in a function under the 2 % floor; listed out of
// order, as a file from elsewhere may be.
constexpr const char* kSampledHost = R"({"input_functions":{
  "interval_ms": 5.0, "samples": 260, "fetch_samples": 200, "processes": 3, "worker_processes": 2,
  "functions": [
    {"file": "torch/utils/data/_utils/collate.py", "function": "collate", "line": 100,
     "hottest_line": 101, "samples": 46},
    {"file": "data.py", "function": "Images.decode", "line": 20, "hottest_line": 24,
     "samples": 150},
    {"file": "data.py", "function": "Images.__len__", "line": 9, "hottest_line": 9, "samples": 3}
  ]}})";

TEST(RuleInputBound, SampledFunctionsAreTheEvidenceAndTheFixStartsWithTheBusiest) {
  const Trace trace = steps_with_loader(600, kSampledHost);
  ASSERT_TRUE(trace.host && trace.host->input_sampling);
  EXPECT_EQ(trace.host->input_sampling->functions.size(), 3U);
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* finding = find(diagnosis, "input-bound");
  ASSERT_NE(finding, nullptr);
  std::vector<const Evidence*> functions;
  for (const Evidence& evidence : finding->evidence) {
    if (evidence.unit == "% of sampled input time") functions.push_back(&evidence);
  }
  ASSERT_EQ(functions.size(), 2U);  // the third is under 2 % of the input's samples
  EXPECT_NE(functions[0]->label.find("Images.decode (data.py:24)"), std::string::npos);
  EXPECT_DOUBLE_EQ(functions[0]->value, 75.0);
  EXPECT_DOUBLE_EQ(functions[1]->value, 23.0);
  EXPECT_EQ(finding->fix.find("Start with Images.decode (data.py:24), where 75 %"), 0U);
  ASSERT_TRUE(finding->code.has_value());
  EXPECT_EQ(finding->code->file, "data.py");
  EXPECT_EQ(finding->code->line, 24);
  // The verdict and the gain are the trace's, not the samples'.
  EXPECT_EQ(finding->gain.bound_ns, 600'000);
}

TEST(RuleInputBound, UnusableSamplesAreLeftOutAndTheFindingStands) {
  // More samples in a function than inside the fetch: not to be trusted.
  const Trace trace = steps_with_loader(
      600, R"({"input_functions":{"interval_ms":5,"samples":10,"fetch_samples":5,"processes":1,)"
           R"("functions":[{"file":"a.py","function":"f","line":1,"samples":9}]}})");
  ASSERT_TRUE(trace.host.has_value());
  EXPECT_FALSE(trace.host->input_sampling.has_value());
  const Diagnosis diagnosis = diagnose(analyze_rank(trace, {}));
  const Finding* finding = find(diagnosis, "input-bound");
  ASSERT_NE(finding, nullptr);
  EXPECT_FALSE(finding->code.has_value());
  EXPECT_EQ(finding->fix.find("Start with"), std::string::npos);
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
  EXPECT_EQ(finding->gain.likely_ns, 600'000);  // the replay; the bound says what it needs
  EXPECT_NE(finding->gain.method.find("free CPU cores"), std::string::npos);
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
