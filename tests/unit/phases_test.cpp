// Training phases per step on small traces with exact expectations.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "render/json/json_sink.h"
#include "render/terminal/phases_text.h"
#include "stepscope/analysis/phases.h"
#include "stepscope/figures/phases_fields.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

constexpr std::int64_t kUs = 1000;

PhasesResult run(const Trace& trace, Mode mode = Mode::kNative) {
  AnalysisOptions options;
  options.mode = mode;
  return compute_phases(trace, find_steps(trace, options), options);
}

std::int64_t host_sum(const PhaseTimes& times) {
  return std::accumulate(times.host_ns.begin(), times.host_ns.end(), std::int64_t{0});
}

// One step [0,100) µs on thread 1: data loading [2,10), aten::linear [10,30) launching a kernel
// [20,40), Optimizer.step [70,90) launching [80,95). Thread 2 runs the backward: an
// evaluate_function root [40,60) launching [50,70), then a top-level aten::zeros [62,65).
testing::TraceFixture training_step() {
  testing::TraceFixture f;
  f.step(1, 0, 100);
  f.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 2, 8);
  f.op("aten::linear", 10, 20).runtime("cudaLaunchKernel", 12, 5, 1).kernel("gemm", 20, 20, 1);
  f.op("autograd::engine::evaluate_function: MmBackward0", 40, 20, 2);
  f.runtime("cudaLaunchKernel", 45, 2, 2, 2).kernel("gemm_bwd", 50, 20, 2, 8);
  f.op("aten::zeros", 62, 3, 2);
  f.op("Optimizer.step#SGD.step", 70, 20).runtime("cudaLaunchKernel", 75, 2, 3);
  f.kernel("sgd_update", 80, 15, 3);
  return f;
}

TEST(Phases, MarkersAndBackwardThreadGiveHostAndDeviceTime) {
  const PhasesResult result = run(training_step().load());
  ASSERT_TRUE(result.applicable);
  ASSERT_EQ(result.steps.size(), 1U);
  const StepPhases& step = result.steps.front();
  EXPECT_TRUE(step.forward_inferred);
  EXPECT_EQ(step.times.step_ns, 100 * kUs);
  EXPECT_EQ(step.times.host(Phase::kDataLoading), 8 * kUs);
  EXPECT_EQ(step.times.host(Phase::kForward), 20 * kUs);
  EXPECT_EQ(step.times.host(Phase::kBackward), 23 * kUs);  // [40,60) + [62,65)
  EXPECT_EQ(step.times.host(Phase::kOptimizer), 20 * kUs);
  EXPECT_EQ(step.times.host(Phase::kOther), 29 * kUs);
  EXPECT_EQ(host_sum(step.times), step.times.step_ns);
  EXPECT_EQ(step.times.device(Phase::kForward), 20 * kUs);
  EXPECT_EQ(step.times.device(Phase::kBackward), 20 * kUs);
  EXPECT_EQ(step.times.device(Phase::kOptimizer), 15 * kUs);
  EXPECT_EQ(step.times.device(Phase::kOther), 0);
  EXPECT_EQ(result.markers[static_cast<std::size_t>(Phase::kBackward)], 2);  // root + aten::zeros
}

TEST(Phases, ExplicitMarkersReplaceInferenceAndOverlapsFollowPriority) {
  testing::TraceFixture f = training_step();
  f.annotation("## forward ##", 5, 30);    // [5,35): data loading keeps [5,10)
  f.annotation("## backward ##", 40, 40);  // [40,80): the optimizer keeps [70,80)
  const PhasesResult result = run(f.load());
  const StepPhases& step = result.steps.front();
  EXPECT_FALSE(step.forward_inferred);
  EXPECT_EQ(step.times.host(Phase::kForward), 25 * kUs);   // [10,35)
  EXPECT_EQ(step.times.host(Phase::kBackward), 30 * kUs);  // [40,70)
  EXPECT_EQ(step.times.host(Phase::kOptimizer), 20 * kUs);
  EXPECT_EQ(host_sum(step.times), step.times.step_ns);
  // aten::linear sits inside `## forward ##`: its kernel is still forward work.
  EXPECT_EQ(step.times.device(Phase::kForward), 20 * kUs);
}

TEST(Phases, MarkerNamesNeedALeadingKeyword) {
  testing::TraceFixture f;
  f.step(1, 0, 100).annotation("## all2all_data:lengths ##", 10, 20);
  const PhasesResult result = run(f.load());
  ASSERT_TRUE(result.applicable);
  EXPECT_EQ(result.steps.front().times.host(Phase::kDataLoading), 0);
  // An unknown annotation at the top of the step is inferred forward work.
  EXPECT_EQ(result.steps.front().times.host(Phase::kForward), 20 * kUs);
}

TEST(Phases, CpuOnlyInferenceStepIsAllForward) {
  testing::TraceFixture f;
  f.step(1, 0, 100).step(2, 100, 100).op("aten::add", 10, 20).op("aten::mul", 120, 30);
  const PhasesResult result = run(f.load());
  ASSERT_EQ(result.steps.size(), 2U);
  EXPECT_EQ(result.steps[0].times.host(Phase::kForward), 20 * kUs);
  EXPECT_EQ(result.steps[1].times.host(Phase::kForward), 30 * kUs);
  EXPECT_EQ(result.mean.host(Phase::kForward), 25 * kUs);
  EXPECT_EQ(result.mean.host(Phase::kOther), 75 * kUs);
  EXPECT_EQ(result.mean.device(Phase::kForward), 0);
}

TEST(Phases, NoStepsIsNotApplicable) {
  testing::TraceFixture f;
  f.op("## forward ##", 0, 10);
  const PhasesResult result = run(f.load());
  EXPECT_FALSE(result.applicable);
  EXPECT_EQ(result.not_applicable_reason, "no kept steps");
}

TEST(Phases, NoMarkersIsNoted) {
  testing::TraceFixture f;
  f.step(1, 0, 100);
  const PhasesResult result = run(f.load());
  ASSERT_TRUE(result.applicable);
  EXPECT_EQ(result.steps.front().times.host(Phase::kOther), 100 * kUs);
  ASSERT_FALSE(result.notes.empty());
  EXPECT_NE(result.notes.back().find("no phase markers"), std::string::npos);
}

TEST(Phases, JsonAndTextCarryUnits) {
  render::JsonWriter json;
  render::write_json(json, run(training_step().load()));
  const std::string& text = json.text();
  EXPECT_NE(text.find("\"backward\":{\"host_us\":23,\"host_share\":0.23,\"device_us\":20}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"forward_inferred\":true"), std::string::npos);
  const std::string rendered = render::render_text(run(training_step().load()), 5);
  EXPECT_NE(rendered.find("23.0 µs"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("inferred"), std::string::npos);
  // The column says how the forward phase was found, and its heading says so too.
  EXPECT_NE(rendered.find("forward phase"), std::string::npos) << rendered;
}

// The cached per-name form answers what the one-event form answers, for every event: markers,
// nested backward roots (only the outermost marks), annotations, kernels and plain ops.
TEST(Phases, MarkerPhasesAgreesWithPhaseOfMarkerOnEveryEvent) {
  testing::TraceFixture f = training_step();
  f.annotation("## forward ##", 5, 30);
  f.op("autograd::engine::evaluate_function: AddBackward0", 41, 5, 2);  // nested in the root
  const Trace trace = f.load();
  MarkerPhases markers(trace);
  int marked = 0;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    const std::optional<Phase> expected = phase_of_marker(trace, i);
    EXPECT_EQ(markers.of(i), expected) << trace.name_of(i);
    marked += expected.has_value() ? 1 : 0;
  }
  EXPECT_GE(marked, 4);  // data loading, forward, the outer backward root, the optimizer
}

}  // namespace
}  // namespace stepscope
