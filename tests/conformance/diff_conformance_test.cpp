// `stepscope diff` on HTA's trace_diff pair: control (rank 3, 8 × A100) against test (rank 1,
// 2 × V100), the same model. What is asserted is read from the traces here, independently of
// the diff code: every kept test step is longer than every kept control step, and the GEMM
// kernels are Ampere / CUTLASS sm80 ones in control and Volta ones in test.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "stepscope/analysis/steps.h"
#include "stepscope/diff.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

const char* const kControl = "hta/trace_diff/control";
const char* const kTest = "hta/trace_diff/test";

// Names of device activities starting inside the kept steps' span.
std::set<std::string> activity_names(const Trace& trace) {
  const StepsResult steps = find_steps(trace, {});
  std::set<std::string> names;
  if (!steps.window) return names;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const auto index = static_cast<EventIndex>(i);
    const std::int64_t start = trace.events.start_ns[i];
    if (is_device_activity(trace.events.event_class[i]) && start >= steps.window->start &&
        start < steps.window->end) {
      names.emplace(trace.name_of(index));
    }
  }
  return names;
}

std::vector<std::int64_t> kept_durations(const Trace& trace) {
  std::vector<std::int64_t> durations;
  const StepsResult steps = find_steps(trace, {});  // kept() points into it: keep it alive
  for (const Step* step : steps.kept()) durations.push_back(step->duration_ns());
  return durations;
}

bool starts_with_any(const std::string& name, std::initializer_list<const char*> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&name](const char* p) { return name.starts_with(p); });
}

TEST(DiffConformance, HtaTraceDiffControlAgainstTest) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet control = testing::load_shared(kControl);
  const TraceSet test = testing::load_shared(kTest);
  ASSERT_EQ(control.ranks.size(), 1U);
  ASSERT_EQ(test.ranks.size(), 1U);
  const std::vector<std::int64_t> before = kept_durations(control.ranks[0]);
  const std::vector<std::int64_t> after = kept_durations(test.ranks[0]);
  ASSERT_GE(before.size(), 2U);
  ASSERT_GE(after.size(), 2U);
  // The traces' own fact: the slowest control step is faster than the fastest test step.
  ASSERT_LT(*std::max_element(before.begin(), before.end()),
            *std::min_element(after.begin(), after.end()));

  DiffRequest request;
  request.before = testing::shared_traces_dir() + "/" + kControl;
  request.after = testing::shared_traces_dir() + "/" + kTest;
  request.resamples = 2000;
  Result<DiffResult> result = compare_runs(request);
  ASSERT_TRUE(result.ok()) << result.error().describe();
  const DiffResult& diff = *result;
  EXPECT_EQ(diff.steps.before.durations_ns, before);
  EXPECT_EQ(diff.steps.after.durations_ns, after);
  // With every after step longer than every before step, any resample's ratio exceeds 1.
  EXPECT_EQ(diff.steps.verdict, Verdict::kSlower);
  EXPECT_GT(diff.steps.ratio_low, 1.0);
  EXPECT_TRUE(slower_beyond(diff, 0));
  EXPECT_FALSE(slower_beyond(diff, (diff.steps.ratio_high - 1) * 100));

  // Appeared / vanished are exactly the set differences of the activity names.
  const std::set<std::string> control_names = activity_names(control.ranks[0]);
  const std::set<std::string> test_names = activity_names(test.ranks[0]);
  std::size_t only_test = 0;
  std::size_t only_control = 0;
  std::size_t volta_only_test = 0;
  for (const std::string& name : test_names) {
    if (control_names.count(name) != 0) continue;
    ++only_test;
    if (name.starts_with("volta_")) ++volta_only_test;
  }
  for (const std::string& name : control_names) only_control += test_names.count(name) == 0;
  EXPECT_EQ(diff.kernels_appeared_total, only_test);
  EXPECT_EQ(diff.kernels_vanished_total, only_control);
  EXPECT_EQ(diff.kernels_total, control_names.size() - only_control);
  // The hardware change shows as GEMM kernels: Volta ones appear, Ampere / sm80 ones vanish.
  EXPECT_GT(volta_only_test, 0U);
  for (const std::string& name : control_names) {
    EXPECT_FALSE(name.starts_with("volta_")) << name;
  }
  for (const std::string& name : test_names) {
    EXPECT_FALSE(starts_with_any(name, {"ampere_", "sm80_"})) << name;
  }
  for (const KernelChange& k : diff.kernels_appeared) {
    EXPECT_EQ(control_names.count(k.name), 0U) << k.name;
    EXPECT_GT(k.after_count, 0);
  }
  for (const KernelChange& k : diff.kernels_vanished) {
    EXPECT_EQ(test_names.count(k.name), 0U) << k.name;
    EXPECT_GT(k.before_count, 0);
  }
  // The renderers work from the result alone.
  EXPECT_NE(render_diff_json(diff).find(R"("verdict":"slower")"), std::string::npos);
  EXPECT_NE(render_diff_text(diff, 5).find("verdict: slower"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
