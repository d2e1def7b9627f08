// The memory planner's step-time arithmetic: collective volumes, the optimizer scaling, the
// time fit and the accumulation split, and the cost each plan row carries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "memory/plan_cost.h"
#include "stepscope/memory/plan.h"

namespace stepscope::memory {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

TEST(MemoryPlanCost, CollectiveVolumesFollowTheBusBandwidthConvention) {
  EXPECT_DOUBLE_EQ(collective_bus_bytes(800, 4), 600);  // (n - 1) / n
  EXPECT_DOUBLE_EQ(collective_bus_bytes(800, 1), 0);    // nothing to exchange
  // Stages 1 and 2: reduce-scatter of the gradients + all-gather of the parameters.
  EXPECT_DOUBLE_EQ(zero_bus_bytes_per_step(1, 8, 800, 800), 700 + 700);
  EXPECT_DOUBLE_EQ(zero_bus_bytes_per_step(2, 8, 800, 800), 1400);
  // Stage 3 gathers the parameters for forward and again for backward.
  EXPECT_DOUBLE_EQ(zero_bus_bytes_per_step(3, 8, 800, 800), 2100);
  // 1 GB at 100 GB/s: 10 ms.
  EXPECT_DOUBLE_EQ(transfer_ms(1e9, 100), 10);
}

TEST(MemoryPlanCost, OptimizerBytesTouchedCountWeightsGradientsAndStateTwice) {
  EXPECT_DOUBLE_EQ(optimizer_bytes_touched(0), 12);  // SGD: weight read + write, gradient read
  EXPECT_DOUBLE_EQ(optimizer_bytes_touched(8), 28);  // AdamW: two fp32 moments read + written
}

TEST(MemoryPlanCost, TimeLinearInTheBatchThroughTwoPoints) {
  const LinearTime t = fit_linear_time(8, 10.0, 16, 18.0);
  EXPECT_DOUBLE_EQ(t.per_sample_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.fixed_ms, 2.0);
  EXPECT_DOUBLE_EQ(t.at(48), 50.0);
  // Noise that would give a negative intercept: no fixed part, the slope through the larger.
  const LinearTime noisy = fit_linear_time(8, 4.0, 16, 18.0);
  EXPECT_DOUBLE_EQ(noisy.fixed_ms, 0.0);
  EXPECT_DOUBLE_EQ(noisy.per_sample_ms, 18.0 / 16);
}

TEST(MemoryPlanCost, AccumulationUsesTheLargestFittingMicroBatch) {
  EXPECT_EQ(accumulation_for(100, 30).micro_batch, 30);
  EXPECT_EQ(accumulation_for(100, 30).steps, 4);  // ceil(100 / 30)
  EXPECT_EQ(accumulation_for(24, 30).steps, 1);   // fits in one step
  EXPECT_EQ(accumulation_for(24, 30).micro_batch, 24);
  EXPECT_EQ(accumulation_for(24, -1).steps, 1);  // activations set no bound
  EXPECT_EQ(accumulation_for(24, 0).steps, 0);   // nothing fits
}

PlanMeasurement timed() {
  PlanMeasurement m;
  m.parameter_count = 10'000'000;
  m.parameter_bytes = 40'000'000;
  m.gradient_bytes = 40'000'000;
  m.optimizer_state_bytes = 80'000'000;
  m.optimizer = "AdamW";
  m.batch_a = 4;
  m.peak_a = 200 * kMiB + std::int64_t{4} * 8 * kMiB;
  m.batch_b = 8;
  m.peak_b = 200 * kMiB + std::int64_t{8} * 8 * kMiB;
  m.optimizer_peak = 200'000'000;
  m.capacity_bytes = 1024 * kMiB;
  m.repeated_blocks = 4;
  m.timing_a = {.forward_ms = 6, .backward_ms = 12, .optimizer_ms = 4, .blocks_forward_ms = 5};
  m.timing_b = {.forward_ms = 10, .backward_ms = 20, .optimizer_ms = 4, .blocks_forward_ms = 8};
  m.shards = 4;
  m.link_gbps = 100;
  return m;
}

const PlanRow& row(const MemoryPlan& plan, std::string_view prefix) {
  for (const PlanRow& r : plan.rows) {
    if (r.technique.starts_with(prefix)) return r;
  }
  ADD_FAILURE() << "no row " << prefix;
  return plan.rows.front();
}

TEST(MemoryPlanCost, EachRowCarriesItsEstimatedCostAndWhatItRestsOn) {
  const Result<MemoryPlan> plan = plan_memory(timed());
  ASSERT_TRUE(plan.ok()) << plan.error().describe();
  EXPECT_DOUBLE_EQ(row(*plan, "current").cost_ms, 0.0);
  // Checkpointing recomputes the blocks' forward (8 ms of the 34 ms step), or half of it.
  EXPECT_DOUBLE_EQ(row(*plan, "checkpoint every block").cost_ms, 8.0);
  EXPECT_DOUBLE_EQ(row(*plan, "checkpoint every block").cost_share, 8.0 / 34);
  EXPECT_DOUBLE_EQ(row(*plan, "checkpoint every second").cost_ms, 4.0);
  EXPECT_NE(row(*plan, "checkpoint every block").cost_basis.find("8.000 ms measured"),
            std::string::npos);
  // bf16 is not estimated on the CPU, and says so.
  EXPECT_TRUE(std::isnan(row(*plan, "bf16 autocast").cost_ms));
  EXPECT_NE(row(*plan, "bf16 autocast").cost_basis.find("not estimated on the CPU"),
            std::string::npos);
  // SGD momentum touches 20 of AdamW's 28 bytes per parameter: the 4 ms step shrinks by
  // 4 * 8 / 28; plain SGD (12 bytes) by 4 * 16 / 28.
  EXPECT_NEAR(row(*plan, "optimizer SGD momentum").cost_ms, -4.0 * 8 / 28, 1e-9);
  const auto sgd = std::find_if(plan->rows.begin(), plan->rows.end(),
                                [](const PlanRow& r) { return r.technique == "optimizer SGD"; });
  ASSERT_NE(sgd, plan->rows.end());
  EXPECT_NEAR(sgd->cost_ms, -4.0 * 16 / 28, 1e-9);
  EXPECT_NE(sgd->cost_basis.find("estimate"), std::string::npos);
  // ZeRO-3 over 4 GPUs: 3/4 of (2 x 40 MB + 40 MB) = 90 MB at 100 GB/s = 0.9 ms.
  EXPECT_NEAR(row(*plan, "ZeRO-3").cost_ms, 0.9, 1e-9);
  EXPECT_NEAR(row(*plan, "ZeRO-1").cost_ms, 0.6, 1e-9);
  EXPECT_NE(row(*plan, "ZeRO-3").cost_basis.find("at 100 GB/s"), std::string::npos);
  const std::string text = render_plan_text(*plan);
  EXPECT_NE(text.find("+8.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("not estimated"), std::string::npos);
}

TEST(MemoryPlanCost, TheAccumulationRowSplitsTheEffectiveBatch) {
  PlanMeasurement m = timed();
  m.effective_batch = 200;
  const Result<MemoryPlan> plan = plan_memory(m);
  ASSERT_TRUE(plan.ok());
  const PlanRow& current = plan->rows.front();
  const PlanRow& acc = row(*plan, "gradient accumulation");
  // (0.9 GiB - 200 MiB) / 8 MiB = 90 samples fit; 200 samples take ceil(200 / 90) = 3 steps.
  ASSERT_EQ(current.largest_batch, 90);
  EXPECT_EQ(acc.batch, 90);
  EXPECT_EQ(acc.accumulation_steps, 3);
  EXPECT_EQ(acc.technique, "gradient accumulation 3 x 90 (effective 200)");
  EXPECT_EQ(acc.predicted_peak_bytes, predicted_peak(current, 90));
  // Forward+backward: 18 ms at 4, 30 ms at 8 -> 6 ms fixed + 3 ms per sample; two extra
  // micro-steps pay the fixed 6 ms each, against one 200-sample step of 6 + 600 + 4 ms.
  EXPECT_DOUBLE_EQ(acc.cost_ms, 12.0);
  EXPECT_DOUBLE_EQ(acc.cost_share, 12.0 / 610);
  // The default effective batch is the measured one, which fits: one step, no cost.
  const Result<MemoryPlan> fits = plan_memory(timed());
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(row(*fits, "gradient accumulation").accumulation_steps, 1);
  EXPECT_DOUBLE_EQ(row(*fits, "gradient accumulation").cost_ms, 0.0);
}

TEST(MemoryPlanCost, UntimedStepsEstimateNoCost) {
  PlanMeasurement m = timed();
  m.timing_a = {};
  m.timing_b = {};
  const Result<MemoryPlan> plan = plan_memory(m);
  ASSERT_TRUE(plan.ok());
  for (const PlanRow& r : plan->rows) {
    EXPECT_TRUE(std::isnan(r.cost_ms)) << r.technique;
    EXPECT_NE(r.cost_basis.find("not"), std::string::npos) << r.technique;
  }
}

TEST(MemoryPlanCost, BadTimesAndOptionsAreRefused) {
  PlanMeasurement m = timed();
  m.timing_b.forward_ms = -1;
  EXPECT_FALSE(plan_memory(m).ok());
  m = timed();
  m.link_gbps = 0;
  EXPECT_FALSE(plan_memory(m).ok());
  // Sizes that could overflow bytes x batch (from a hostile file) are refused.
  m = timed();
  m.peak_b = std::int64_t{1} << 50;
  EXPECT_FALSE(plan_memory(m).ok());
  m = timed();
  m.batch_b = std::int64_t{1} << 40;
  EXPECT_FALSE(plan_memory(m).ok());
  // The largest that are allowed plan without overflow (UBSan would flag it in the fuzz run).
  m = timed();
  m.batch_a = (std::int64_t{1} << 18) - 1;
  m.batch_b = std::int64_t{1} << 18;
  m.peak_a = 1;
  m.peak_b = m.capacity_bytes = std::int64_t{1} << 44;
  EXPECT_TRUE(plan_memory(m).ok());
}

}  // namespace
}  // namespace stepscope::memory
