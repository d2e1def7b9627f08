// Real traces recorded by tools/record_gpu_traces.py on an H100 (PyTorch 2.11, CUDA 13), each
// with one planted problem (tests/data/h100/summary.json has the step times measured there).
// The diagnosis must name the planted problem and stay quiet on the fixed loops.
#include <gtest/gtest.h>

#include <string>

#include "stepscope/diagnosis/diagnose.h"
#include "stepscope/load.h"
#include "support/findings.h"

namespace stepscope {
namespace {

struct Diagnosed {
  Trace trace;
  Diagnosis diagnosis;
};

Diagnosed diagnose_recorded(const std::string& scenario) {
  const std::string path =
      std::string(STEPSCOPE_TEST_DATA) + "/h100/" + scenario + ".pt.trace.json.gz";
  Result<Trace> trace = load_trace_file(path);
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().describe());
  Diagnosed out{std::move(trace).value(), {}};
  out.diagnosis = diagnose(analyze_rank(out.trace, {}));
  return out;
}

const Finding* find(const Diagnosis& diagnosis, const std::string& id) {
  return testing::find_finding(diagnosis, id);
}

TEST(H100PlantedProblems, SlowDatasetInTheMainProcessIsInputBound) {
  const Diagnosed d = diagnose_recorded("input_bound");
  EXPECT_EQ(d.diagnosis.bottleneck, Bottleneck::kInputPipeline);
  ASSERT_FALSE(d.diagnosis.findings.empty());
  EXPECT_EQ(d.diagnosis.findings[0].id, "input-bound");
  // Measured there: 13.26 ms per step, 3.58 ms with four workers: the fix saved 73 %. The
  // replay with every batch ready predicts the saving within 15 % of that (it cannot see the
  // workers' fetch and their competition for the CPU, so it predicts a little more).
  const ExpectedGain& gain = d.diagnosis.findings[0].gain;
  EXPECT_NEAR(gain.likely_share, 0.73, 0.73 * 0.15);
  EXPECT_GE(gain.bound_share, gain.likely_share);
}

TEST(H100PlantedProblems, WorkersRemoveTheInputFinding) {
  EXPECT_EQ(find(diagnose_recorded("input_fixed").diagnosis, "input-bound"), nullptr);
}

TEST(H100PlantedProblems, Float32GemmsLeaveTensorCoresIdle) {
  const Diagnosed d = diagnose_recorded("fp32_gemm");
  ASSERT_FALSE(d.diagnosis.findings.empty());
  EXPECT_EQ(d.diagnosis.findings[0].id, "tensor-cores-idle");
  EXPECT_EQ(d.diagnosis.bottleneck, Bottleneck::kGpuCompute);
  // Measured there: 18.46 ms per step, 6.42 ms under autocast(bfloat16): the fix saved 65 %. The
  // replay at the H100's bf16 / fp32 peak ratio, with the weights' casts, predicts it within 15 %.
  const ExpectedGain& gain = d.diagnosis.findings[0].gain;
  EXPECT_NEAR(gain.likely_share, 0.65, 0.65 * 0.15);
  EXPECT_GE(gain.bound_share, gain.likely_share);
}

TEST(H100PlantedProblems, Bfloat16GemmsAreHealthy) {
  const Diagnosed d = diagnose_recorded("bf16_gemm");
  EXPECT_EQ(d.diagnosis.bottleneck, Bottleneck::kHealthy);
  EXPECT_EQ(find(d.diagnosis, "tensor-cores-idle"), nullptr);
}

TEST(H100PlantedProblems, TinyModelAtBatchOneIsLaunchBoundWithAnUnfusedOptimizer) {
  const Diagnosed d = diagnose_recorded("launch_bound");
  ASSERT_FALSE(d.diagnosis.findings.empty());
  EXPECT_EQ(d.diagnosis.findings[0].id, "launch-bound");
  EXPECT_NE(find(d.diagnosis, "unfused-optimizer"), nullptr);
}

TEST(H100PlantedProblems, BatchesKeptAcrossStepsGrowMemory) {
  const Diagnosed d = diagnose_recorded("memory_leak");
  const Finding* growth = find(d.diagnosis, "memory-growth");
  ASSERT_NE(growth, nullptr);
  // Each kept batch is 512 x 2048 float32 = 4 MiB.
  EXPECT_NEAR(growth->evidence[2].value, 4.0, 0.01);
}

TEST(H100PlantedProblems, CopiesToTheHostInTheLoopAreFound) {
  const Diagnosed d = diagnose_recorded("sync_in_loop");
  const Finding* transfers = find(d.diagnosis, "transfers");
  ASSERT_NE(transfers, nullptr);
  EXPECT_EQ(d.diagnosis.findings[0].id, "transfers");
}

}  // namespace
}  // namespace stepscope
