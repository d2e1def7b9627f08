// The memory curve (docs/metrics/11-memory-curve-from-memory-events.md §11) against conformance.md
// §8: df_index_resolver's 28,010
// `[memory]` records, checked against tb_plugin's peak. Exact byte counts.
#include <gtest/gtest.h>

#include "stepscope/analysis/memory_curve.h"
#include "support/shared_traces.h"

namespace stepscope {
namespace {

TEST(MemoryConformance, DfIndexResolverPeaksAndCounts) {
  STEPSCOPE_REQUIRE_SHARED_TRACES();
  const TraceSet set = testing::load_shared("hta/df_index_resolver");
  ASSERT_EQ(set.ranks.size(), 1U);
  const Trace& trace = set.ranks.front();
  const MemoryCurveResult memory = compute_memory_curve(trace, find_steps(trace, {}), 10);
  ASSERT_EQ(memory.devices.size(), 2U);

  const DeviceMemory& gpu = memory.devices[0];
  EXPECT_EQ(gpu.device_type, 1);
  EXPECT_EQ(gpu.device_id, 1);
  EXPECT_EQ(gpu.records, 26'770);
  EXPECT_EQ(gpu.allocations, 13'385);
  EXPECT_EQ(gpu.frees, 13'385);
  EXPECT_EQ(gpu.peak_allocated, 6'629'508'096);
  EXPECT_EQ(gpu.peak_reserved, 12'782'141'440);
  EXPECT_EQ(gpu.reserved_increases + gpu.reserved_decreases, 0);  // constant reservation
  EXPECT_EQ(gpu.first_allocated, 4'121'780'224);
  EXPECT_EQ(gpu.last_allocated, 4'096'614'400);

  const DeviceMemory& cpu = memory.devices[1];
  EXPECT_EQ(cpu.device_type, 0);
  EXPECT_EQ(cpu.device_id, -1);
  EXPECT_EQ(cpu.records, 1'240);
  EXPECT_EQ(cpu.allocations, 620);
  EXPECT_EQ(cpu.frees, 620);
  EXPECT_EQ(cpu.peak_allocated, 8);
  EXPECT_EQ(cpu.peak_reserved, 0);
  EXPECT_EQ(cpu.first_allocated, 8);
  EXPECT_EQ(cpu.last_allocated, 0);
}

}  // namespace
}  // namespace stepscope
