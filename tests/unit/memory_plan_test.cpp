#include "stepscope/memory/plan.h"

#include <gtest/gtest.h>

namespace stepscope::memory {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

// 10 M parameters in fp32 with AdamW: 40 MB of weights, as many gradients, twice as much
// state. Forward and backward peak at weights + state + 100 MiB + 8 MiB per sample; the
// optimizer step at weights + gradients + state + 40 MB of temporaries.
PlanMeasurement measured() {
  PlanMeasurement m;
  m.parameter_count = 10'000'000;
  m.parameter_bytes = 40'000'000;
  m.gradient_bytes = 40'000'000;
  m.optimizer_state_bytes = 80'000'000;
  m.optimizer = "AdamW";
  const std::int64_t fixed = 120'000'000 + 100 * kMiB;
  m.batch_a = 4;
  m.peak_a = fixed + std::int64_t{4} * 8 * kMiB;
  m.batch_b = 8;
  m.peak_b = fixed + std::int64_t{8} * 8 * kMiB;
  m.optimizer_peak = 200'000'000;
  m.capacity_bytes = 1024 * kMiB;
  m.repeated_blocks = 4;
  m.shards = 4;
  m.safety_margin = 0.10;
  return m;
}

const PlanRow* find(const MemoryPlan& plan, std::string_view prefix) {
  for (const PlanRow& row : plan.rows) {
    if (row.technique.starts_with(prefix)) return &row;
  }
  return nullptr;
}

TEST(MemoryPlan, TheLinearModelRecoversFixedAndPerSampleBytes) {
  const Result<MemoryPlan> plan = plan_memory(measured());
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  EXPECT_EQ(plan->per_sample_bytes, 8 * kMiB);
  EXPECT_EQ(plan->fixed_bytes, 120'000'000 + 100 * kMiB);
  EXPECT_EQ(plan->other_fixed_bytes, 100 * kMiB);
  EXPECT_EQ(plan->optimizer_temporary_bytes, 40'000'000);
  const PlanRow& current = plan->rows.front();
  EXPECT_EQ(current.technique, "current (AdamW)");
  EXPECT_EQ(predicted_peak(current, 16), plan->fixed_bytes + std::int64_t{16} * 8 * kMiB);
  // (0.9 GiB - fixed) / 8 MiB, rounded down.
  const double budget = 0.9 * 1024 * kMiB - static_cast<double>(plan->fixed_bytes);
  EXPECT_EQ(current.largest_batch, static_cast<std::int64_t>(budget / (8 * kMiB)));
  EXPECT_NE(render_plan_text(*plan).find("estimated"), std::string::npos);
}

TEST(MemoryPlan, EachTechniqueChangesItsOwnPart) {
  const Result<MemoryPlan> plan = plan_memory(measured());
  ASSERT_TRUE(plan.ok());
  const PlanRow* sgd = find(*plan, "optimizer SGD momentum");
  ASSERT_NE(sgd, nullptr);
  // In forward and backward the momentum buffer (4 bytes a parameter) replaces AdamW's state;
  // in the step, AdamW's state and measured temporaries give way to the buffer alone.
  EXPECT_EQ(sgd->fixed_bytes, plan->fixed_bytes - 80'000'000 + 40'000'000);
  EXPECT_EQ(sgd->optimizer_peak_bytes, 200'000'000 - 80'000'000 - 40'000'000 + 40'000'000);
  EXPECT_EQ(find(*plan, "optimizer AdamW"), nullptr);  // the current one is not repeated
  const PlanRow* autocast = find(*plan, "bf16 autocast");
  ASSERT_NE(autocast, nullptr);
  EXPECT_EQ(autocast->per_sample_bytes, 4 * kMiB);
  EXPECT_EQ(autocast->fixed_bytes, plan->fixed_bytes + 20'000'000);
  const PlanRow* checkpoint = find(*plan, "checkpoint every block");
  ASSERT_NE(checkpoint, nullptr);
  EXPECT_EQ(checkpoint->per_sample_bytes, 4 * kMiB);  // 2 / 4 blocks
  const PlanRow* zero3 = find(*plan, "ZeRO-3");
  ASSERT_NE(zero3, nullptr);
  EXPECT_EQ(zero3->fixed_bytes, plan->fixed_bytes - 120'000'000);  // 3/4 of 160 MB
  EXPECT_EQ(zero3->optimizer_peak_bytes, 200'000'000 - 120'000'000);
  EXPECT_GT(zero3->largest_batch, plan->rows.front().largest_batch);
}

TEST(MemoryPlan, TwoBlocksGiveNoCheckpointingRows) {
  PlanMeasurement m = measured();
  m.repeated_blocks = 2;
  const Result<MemoryPlan> plan = plan_memory(m);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(find(*plan, "checkpoint"), nullptr);
  EXPECT_EQ(find(*plan, "bf16 autocast + checkpoint"), nullptr);
  m.repeated_blocks = 4;
  const Result<MemoryPlan> four = plan_memory(m);
  ASSERT_TRUE(four.ok());
  const PlanRow* second = find(*four, "checkpoint every second block");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->per_sample_bytes, 6 * kMiB);  // (1/2 + 1/4) of 8 MiB
}

TEST(MemoryPlan, UnusableMeasurementsAreRefused) {
  PlanMeasurement m = measured();
  m.batch_b = m.batch_a;
  const Result<MemoryPlan> same = plan_memory(m);
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.error().kind, ErrorKind::kBadOption);
  m = measured();
  m.capacity_bytes = 0;
  EXPECT_FALSE(plan_memory(m).ok());
}

TEST(MemoryPlan, TheOptimizerStepBoundsThePeakWhenActivationsAreSmall) {
  PlanMeasurement m = measured();
  m.optimizer_peak = 600 * kMiB;  // above forward/backward at batch 8 (~278 MiB)
  const Result<MemoryPlan> plan = plan_memory(m);
  ASSERT_TRUE(plan.ok());
  const PlanRow& current = plan->rows.front();
  EXPECT_EQ(current.predicted_peak_bytes, 600 * kMiB);
  EXPECT_EQ(predicted_peak(current, 60), plan->fixed_bytes + std::int64_t{60} * 8 * kMiB);
  m.optimizer_peak = 1000 * kMiB;  // beyond 90 % of the 1 GiB capacity: no batch fits
  const Result<MemoryPlan> over = plan_memory(m);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(over->rows.front().largest_batch, 0);
}

TEST(MemoryPlan, NothingFitsGivesZero) {
  PlanMeasurement m = measured();
  m.capacity_bytes = 200 * kMiB;  // the fixed part alone exceeds 90 % of it
  const Result<MemoryPlan> plan = plan_memory(m);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->rows.front().largest_batch, 0);
}

}  // namespace
}  // namespace stepscope::memory
