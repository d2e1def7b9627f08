// StepCursor (diagnosis/gain.h) answers exactly as step_at while times never decrease, and still
// answers when they do; NameTest (analysis/name_test.h) answers as its predicate for every event.
#include <gtest/gtest.h>

#include <string_view>

#include "analysis/name_test.h"
#include "diagnosis/gain.h"
#include "support/trace_fixture.h"

namespace stepscope {
namespace {

Step step(std::int64_t number, std::int64_t start, std::int64_t end, StepStatus status) {
  Step s;
  s.number = number;
  s.start_ns = start;
  s.end_ns = end;
  s.status = status;
  return s;
}

// Kept [10,20), a gap, dropped [30,40), kept [40,50) touching it, kept [60,70).
StepsResult three_kept_one_dropped() {
  StepsResult steps;
  steps.steps = {step(1, 10, 20, StepStatus::kKept),
                 step(2, 30, 40, StepStatus::kOutsideRequestedRange),
                 step(3, 40, 50, StepStatus::kKept), step(4, 60, 70, StepStatus::kKept)};
  return steps;
}

TEST(StepCursor, AgreesWithStepAtOverRisingTimes) {
  const StepsResult steps = three_kept_one_dropped();
  StepCursor cursor(steps);
  int kept_hits = 0;
  for (std::int64_t t = 0; t < 80; ++t) {
    const Step* expected = step_at(steps, t);
    EXPECT_EQ(cursor.at(t), expected) << "t=" << t;
    EXPECT_EQ(cursor.at(t), expected) << "t=" << t << " asked twice";
    kept_hits += expected != nullptr ? 1 : 0;
  }
  EXPECT_EQ(kept_hits, 30);  // three kept steps of 10 ns each
}

TEST(StepCursor, AnswersATimeEarlierThanTheLast) {
  const StepsResult steps = three_kept_one_dropped();
  StepCursor cursor(steps);
  ASSERT_NE(cursor.at(65), nullptr);
  EXPECT_EQ(cursor.at(65)->number, 4);
  const Step* earlier = cursor.at(15);
  ASSERT_NE(earlier, nullptr);
  EXPECT_EQ(earlier->number, 1);
  EXPECT_EQ(cursor.at(35), nullptr);  // the dropped step
  EXPECT_EQ(cursor.at(69)->number, 4);
}

bool is_gemm(std::string_view name) { return name.find("gemm") != std::string_view::npos; }

TEST(NameTest, AnswersAsItsPredicateForEveryEvent) {
  testing::TraceFixture f;
  f.step(1, 0, 100);
  f.op("aten::mm", 10, 20).runtime("cudaLaunchKernel", 12, 5, 1).kernel("sm90_gemm", 20, 20, 1);
  f.op("aten::add", 40, 10).runtime("cudaLaunchKernel", 41, 2, 2).kernel("add_kernel", 50, 5, 2);
  f.op("aten::mm", 60, 20).runtime("cudaLaunchKernel", 62, 5, 3).kernel("sm90_gemm", 70, 20, 3);
  const Trace trace = f.load();
  NameTest<is_gemm> gemm(trace);
  int gemms = 0;
  for (EventIndex i = 0; i < static_cast<EventIndex>(trace.events.size()); ++i) {
    EXPECT_EQ(gemm(i), is_gemm(trace.name_of(i))) << trace.name_of(i);
    gemms += gemm(i) ? 1 : 0;
  }
  EXPECT_EQ(gemms, 2);
}

}  // namespace
}  // namespace stepscope
