// Phases on the shared traces: no peer figures exist, so these check that the analysis runs,
// that the host parts add up to every kept step, and that the markers each trace is known to
// carry (conformance.md §7 traces) are found.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "stepscope/analysis/phases.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

PhasesResult phases(const Trace& trace, Mode mode) {
  AnalysisOptions options;
  options.mode = mode;
  return compute_phases(trace, find_steps(trace, options), options);
}

TEST(PhasesConformance, HostPartsAddUpToEveryStepOnEveryTrace) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::vector<std::string> folders = {"hta/amd_trace",
                                            "hta/df_index_resolver",
                                            "hta/nccl_parser_config",
                                            "hta/negative_queue_length_values_check",
                                            "hta/ns_resolution_trace",
                                            "hta/sampled_two_ranks",
                                            "hta/trace_diff/control",
                                            "hta/trace_diff/test",
                                            "hta/cpu_only",
                                            "hta/critical_path/alexnet"};
  for (const std::string& folder : folders) {
    const TraceSet set = testing::load_shared(folder);
    ASSERT_FALSE(set.ranks.empty()) << folder;
    for (const Trace& trace : set.ranks) {
      for (Mode mode : {Mode::kNative, Mode::kCompatTb}) {
        const PhasesResult result = phases(trace, mode);
        for (const StepPhases& step : result.steps) {
          const std::int64_t sum = std::accumulate(step.times.host_ns.begin(),
                                                   step.times.host_ns.end(), std::int64_t{0});
          EXPECT_EQ(sum, step.times.step_ns) << folder << " step " << step.step_number;
          for (std::int64_t device : step.times.device_ns) {
            EXPECT_LE(device, step.times.step_ns) << folder;
          }
        }
      }
    }
  }
}

TEST(PhasesConformance, ExplicitMarkersOfNcclParserConfig) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // `## forward ##`, `## backward ##`, `## optimizer ##` in every step.
  const TraceSet set = testing::load_shared("hta/nccl_parser_config");
  const PhasesResult result = phases(set.ranks.front(), Mode::kNative);
  ASSERT_EQ(result.steps.size(), 3U);
  for (const StepPhases& step : result.steps) {
    EXPECT_FALSE(step.forward_inferred);
    EXPECT_GT(step.times.host(Phase::kForward), 0);
    EXPECT_GT(step.times.host(Phase::kBackward), 0);
    EXPECT_GT(step.times.host(Phase::kOptimizer), 0);
    EXPECT_GT(step.times.device(Phase::kForward), 0);
    EXPECT_GT(step.times.device(Phase::kBackward), 0);
  }
}

TEST(PhasesConformance, BackwardThreadAndInferredForwardOfDfIndexResolver) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // evaluate_function roots on autograd's thread, Optimizer.step / zero_grad, no `##` markers.
  const TraceSet set = testing::load_shared("hta/df_index_resolver");
  const PhasesResult result = phases(set.ranks.front(), Mode::kNative);
  ASSERT_EQ(result.steps.size(), 5U);
  for (const StepPhases& step : result.steps) {
    EXPECT_TRUE(step.forward_inferred);
    EXPECT_GT(step.times.host(Phase::kForward), 0);
    EXPECT_GT(step.times.host(Phase::kBackward), 0);
    EXPECT_GT(step.times.host(Phase::kOptimizer), 0);
    EXPECT_GT(step.times.device(Phase::kBackward), 0);
  }
}

TEST(PhasesConformance, DataLoaderOfTraceDiff) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // enumerate(DataLoader)#…__next__ in every step; tb_plugin's DataLoader role (70.0 µs mean,
  // conformance.md §7) is what is left after GPU roles, so the phase is at least that long.
  const TraceSet set = testing::load_shared("hta/trace_diff/control");
  const PhasesResult result = phases(set.ranks.front(), Mode::kNative);
  ASSERT_EQ(result.steps.size(), 6U);
  EXPECT_GE(result.mean.host(Phase::kDataLoading), 70'000);
}

}  // namespace
}  // namespace stepscope
