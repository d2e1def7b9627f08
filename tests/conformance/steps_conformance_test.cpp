// Kept steps and step durations against conformance.md §6 (native) and §7 (compat-tb).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stepscope/analysis/steps.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

struct ExpectedSteps {
  std::string folder;
  std::int64_t rank;
  std::vector<std::int64_t> numbers;
  std::vector<double> durations_us;
};

// conformance.md §6 (step-time table; exact to ±0.001 µs).
const std::vector<ExpectedSteps> kNative = {
    {"hta/amd_trace", 0, {1}, {9288.291}},
    {"hta/df_index_resolver", 1, {2, 3, 4, 5, 6}, {345770, 365256, 346097, 344269, 336328}},
    {"hta/nccl_parser_config", 0, {4, 5, 6}, {222442.191, 219726.905, 224936.243}},
    {"hta/negative_queue_length_values_check",
     0,
     {550, 551, 552, 553, 554},
     {368411, 215570, 216517, 216211, 212518}},
    {"hta/ns_resolution_trace",
     0,
     {101, 102, 103, 104, 105},
     {101151.318, 95736.858, 95570.619, 95664.091, 95394.716}},
    {"hta/sampled_two_ranks", 0, {551, 552}, {607312, 622928}},
    {"hta/sampled_two_ranks", 1, {551, 552}, {607904, 630639}},
    {"hta/trace_diff/control",
     3,
     {1009, 1010, 1011, 1012, 1013, 1014},
     {75656, 76800, 76234, 76727, 78473, 81120}},
    {"hta/trace_diff/test",
     1,
     {1009, 1010, 1011, 1012, 1013, 1014},
     {156646, 117128, 114802, 123104, 116692, 116143}},
};

const Trace* find_rank(const TraceSet& set, std::int64_t rank) {
  for (const Trace& trace : set.ranks) {
    if (trace.rank == rank) return &trace;
  }
  return nullptr;
}

void expect_steps(const ExpectedSteps& expected, Mode mode, double tolerance_us) {
  const TraceSet set = testing::load_shared(expected.folder);
  const Trace* trace = find_rank(set, expected.rank);
  ASSERT_NE(trace, nullptr) << expected.folder << " rank " << expected.rank;
  AnalysisOptions options;
  options.mode = mode;
  const StepsResult steps = find_steps(*trace, options);
  std::vector<std::int64_t> numbers;
  std::vector<double> durations;
  for (const Step* step : steps.kept()) {
    numbers.push_back(step->number);
    durations.push_back(static_cast<double>(step->duration_ns()) / 1000.0);
  }
  EXPECT_EQ(numbers, expected.numbers) << expected.folder;
  ASSERT_EQ(durations.size(), expected.durations_us.size()) << expected.folder;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    EXPECT_NEAR(durations[i], expected.durations_us[i], tolerance_us)
        << expected.folder << " step " << numbers[i];
  }
}

TEST(StepsConformance, NativeKeptStepsAndDurations) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  for (const ExpectedSteps& expected : kNative) expect_steps(expected, Mode::kNative, 0.001);
}

TEST(StepsConformance, CompatTbMatchesPluginIncludingGpuAnnotationQuirk) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  // tb_plugin computes in float64 µs: 0.5 µs tolerance (conformance.md §2).
  for (const ExpectedSteps& expected : kNative) expect_steps(expected, Mode::kCompatTb, 0.5);
}

TEST(StepsConformance, CompatTbMakesOneStepOverHostOpsWithoutProfilerSteps) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  expect_steps({"hta/critical_path/alexnet", 0, {0}, {43348556}}, Mode::kCompatTb, 0.5);
}

TEST(StepsConformance, OutliersFlaggedAsInConformance) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> expected = {
      // conformance.md §653 lists the steps of the MAD bound alone (also df_index_resolver 3,
      // ns_resolution_trace 101, trace_diff/control 1014, trace_diff/test 1012): each is 5 to 6 %
      // over the median of the others, under the 10 % excess the outlier rule now requires
      // (docs/metrics/02-step-time-statistics.md §2). The two kept are 35 % and 70 % slower.
      {"hta/df_index_resolver", {}},   {"hta/negative_queue_length_values_check", {550}},
      {"hta/ns_resolution_trace", {}}, {"hta/trace_diff/control", {}},
      {"hta/trace_diff/test", {1009}}, {"hta/nccl_parser_config", {}},
  };
  for (const auto& [folder, outliers] : expected) {
    const TraceSet set = testing::load_shared(folder);
    ASSERT_FALSE(set.ranks.empty());
    const StepsResult steps = find_steps(set.ranks.front(), AnalysisOptions{});
    std::vector<std::int64_t> flagged;
    for (const Step& step : steps.steps) {
      if (step.outlier) flagged.push_back(step.number);
    }
    EXPECT_EQ(flagged, outliers) << folder;
  }
}

TEST(StepsConformance, StepStatisticsMatchConformanceTable) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/trace_diff/control");
  const StepTimeStats stats = step_time_statistics(find_steps(set.ranks.front(), {}));
  EXPECT_EQ(stats.duration_ns.count, 6U);
  EXPECT_NEAR(stats.duration_ns.mean / 1000, 77501.667, 0.001);
  EXPECT_NEAR(stats.duration_ns.std / 1000, 2007.074, 0.001);
  EXPECT_NEAR(stats.duration_ns.p50 / 1000, 76763.5, 0.001);
  EXPECT_TRUE(stats.duration_ns.few_samples);
}

TEST(StepsConformance, WindowIsGpuSpanWithoutSteps) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/critical_path/alexnet");
  const StepsResult steps = find_steps(set.ranks.front(), {});
  EXPECT_TRUE(steps.steps.empty());
  ASSERT_TRUE(steps.window.has_value());
  EXPECT_EQ(steps.window_source, StepsResult::WindowSource::kGpuActivitySpan);
  EXPECT_EQ(steps.window->length(), 12'920'244'000);
}

}  // namespace
}  // namespace stepscope
