#include "stepscope/analysis/memory_curve.h"

#include <gtest/gtest.h>

#include "support/trace_fixture.h"

namespace stepscope {
namespace {

using testing::TraceFixture;

constexpr std::int64_t kMiB = 1 << 20;

// Two CPU-only steps of 1000 µs. Step 0: forward allocates 10 MiB in aten::linear and 30 MiB in
// aten::relu (nested in aten::linear, so relu is the innermost op); the optimizer allocates
// 5 MiB it never frees. Step 1 frees the 10 MiB. Records are written out of time order.
Trace two_steps() {
  TraceFixture fixture;
  fixture.step(0, 0, 1000).step(1, 1000, 1000);
  fixture.op("aten::linear", 100, 300).op("aten::relu", 200, 50);
  fixture.annotation("Optimizer.step#Adam.step", 600, 200).op("aten::add_", 650, 20);
  // Out of order on purpose: the importer must sort them by time.
  fixture.memory(210, 0xB000, 30 * kMiB, 140 * kMiB, 256 * kMiB);  // relu, the peak
  fixture.memory(150, 0xA000, 10 * kMiB, 110 * kMiB, 256 * kMiB);  // linear
  fixture.memory(240, 0xB000, -30 * kMiB, 110 * kMiB, 256 * kMiB);
  fixture.memory(660, 0xC000, 5 * kMiB, 115 * kMiB, 256 * kMiB);  // add_, never freed
  fixture.memory(1100, 0xA000, -10 * kMiB, 105 * kMiB, 128 * kMiB);
  // A CPU record, and one without totals that must stay out of the curve.
  fixture.memory(300, 0x10, 64, 64, 0, 0, -1);
  fixture.raw_event(
      R"({"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":100,"tid":1,"ts":310,"args":{"Addr":32,"Bytes":-64,"Device Type":0,"Device Id":-1}})");
  return fixture.load();
}

TEST(MemoryCurve, PeakWithItsOpPhaseStepAndLiveAllocations) {
  const Trace trace = two_steps();
  const StepsResult steps = find_steps(trace, {});
  const MemoryCurveResult memory = compute_memory_curve(trace, steps, 10);
  ASSERT_TRUE(memory.applicable);
  ASSERT_EQ(memory.devices.size(), 2U);
  const DeviceMemory& gpu = memory.devices[0];
  EXPECT_EQ(gpu.label, "GPU 0");
  EXPECT_EQ(gpu.records, 5);
  EXPECT_EQ(gpu.allocations, 3);
  EXPECT_EQ(gpu.frees, 2);
  EXPECT_EQ(gpu.peak_allocated, 140 * kMiB);
  EXPECT_EQ(gpu.peak_allocated_time_ns, 210'000);
  EXPECT_EQ(gpu.reserved_at_peak, 256 * kMiB);
  EXPECT_EQ(gpu.peak_reserved, 256 * kMiB);
  EXPECT_EQ(gpu.first_allocated, 110 * kMiB);
  EXPECT_EQ(gpu.last_allocated, 105 * kMiB);
  EXPECT_EQ(gpu.allocated_before_first_record, 100 * kMiB);
  EXPECT_EQ(gpu.reserved_decreases, 1);
  ASSERT_TRUE(gpu.fragmentation_at_peak.has_value());
  EXPECT_DOUBLE_EQ(*gpu.fragmentation_at_peak, 1.0 - 140.0 / 256.0);
  ASSERT_NE(gpu.peak_op, kNoEvent);
  EXPECT_EQ(trace.name_of(gpu.peak_op), "aten::relu");
  ASSERT_TRUE(gpu.peak_step.has_value());
  EXPECT_EQ(*gpu.peak_step, 0);
  EXPECT_FALSE(gpu.peak_phase.has_value());  // no marker around the forward ops
  ASSERT_EQ(gpu.live_at_peak_by_op.size(), 2U);
  EXPECT_EQ(gpu.live_at_peak_by_op[0].op, "aten::relu");
  EXPECT_EQ(gpu.live_at_peak_by_op[0].bytes, 30 * kMiB);
  EXPECT_EQ(gpu.live_at_peak_by_op[1].op, "aten::linear");
  // The curve: time order, one point per record with totals.
  ASSERT_EQ(gpu.curve.size(), 5U);
  for (std::size_t i = 1; i < gpu.curve.size(); ++i) {
    EXPECT_LE(gpu.curve[i - 1].time_ns, gpu.curve[i].time_ns);
  }
}

TEST(MemoryCurve, NeverFreedAllocationsAreAttributedAndStepsShowGrowth) {
  const Trace trace = two_steps();
  const StepsResult steps = find_steps(trace, {});
  const MemoryCurveResult memory = compute_memory_curve(trace, steps, 10);
  const DeviceMemory& gpu = memory.devices[0];
  EXPECT_EQ(gpu.never_freed, 1);
  EXPECT_EQ(gpu.never_freed_bytes, 5 * kMiB);
  ASSERT_EQ(gpu.never_freed_by_op.size(), 1U);
  EXPECT_EQ(gpu.never_freed_by_op[0].op, "aten::add_");
  ASSERT_EQ(gpu.steps.size(), 2U);
  EXPECT_EQ(gpu.steps[0].allocated_at_start, 100 * kMiB);  // before the step's first record
  EXPECT_EQ(gpu.steps[0].peak_allocated, 140 * kMiB);
  EXPECT_EQ(gpu.steps[0].allocated_at_end, 115 * kMiB);
  EXPECT_EQ(gpu.steps[1].allocated_at_start, 115 * kMiB);
  EXPECT_EQ(gpu.steps[1].allocated_at_end, 105 * kMiB);
}

TEST(MemoryCurve, CpuDeviceAndRecordsWithoutTotals) {
  const Trace trace = two_steps();
  const MemoryCurveResult memory = compute_memory_curve(trace, find_steps(trace, {}), 10);
  const DeviceMemory& cpu = memory.devices[1];
  EXPECT_EQ(cpu.label, "CPU");
  EXPECT_EQ(cpu.records, 2);
  EXPECT_EQ(cpu.curve.size(), 1U);  // the record without totals is counted, not drawn
  EXPECT_EQ(cpu.peak_allocated, 64);
  EXPECT_FALSE(cpu.fragmentation_at_peak.has_value());  // nothing reserved
}

TEST(MemoryCurve, PhaseAtThePeakComesFromTheMarkers) {
  TraceFixture fixture;
  fixture.step(0, 0, 1000);
  fixture.annotation("Optimizer.step#Adam.step", 600, 200).op("aten::add_", 650, 20);
  fixture.memory(660, 0xC000, kMiB, kMiB, 2 * kMiB);
  const Trace trace = fixture.load();
  const MemoryCurveResult memory = compute_memory_curve(trace, find_steps(trace, {}), 10);
  ASSERT_EQ(memory.devices.size(), 1U);
  ASSERT_TRUE(memory.devices[0].peak_phase.has_value());
  EXPECT_EQ(*memory.devices[0].peak_phase, Phase::kOptimizer);
}

TEST(MemoryCurve, NoMemoryEventsIsNotApplicable) {
  TraceFixture fixture;
  fixture.step(0, 0, 1000);
  const Trace trace = fixture.load();
  const MemoryCurveResult memory = compute_memory_curve(trace, find_steps(trace, {}), 10);
  EXPECT_FALSE(memory.applicable);
  EXPECT_NE(memory.not_applicable_reason.find("profile_memory=True"), std::string::npos);
}

}  // namespace
}  // namespace stepscope
