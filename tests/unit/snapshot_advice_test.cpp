// Fragmentation that costs capacity and the out-of-memory report, on snapshots built in memory.
#include <gtest/gtest.h>

#include "stepscope/snapshot.h"
#include "stepscope/snapshot_report.h"

namespace stepscope {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

// `segments` large segments of 200 MiB, each with 120 MiB allocated and 80 MiB free.
MemorySnapshot fragmented(int segments, bool expandable = false) {
  MemorySnapshot s;
  for (int k = 0; k < segments; ++k) {
    SnapshotSegment segment;
    segment.device = 0;
    segment.address = 0x100000000ULL * static_cast<std::uint64_t>(k + 1);
    segment.total_size = 200 * kMiB;
    segment.allocated_size = 120 * kMiB;
    segment.active_size = 120 * kMiB;
    segment.expandable = expandable;
    SnapshotBlock used{segment.address, 120 * kMiB, kAbsent, BlockState::kActiveAllocated,
                       kNoStack};
    SnapshotBlock free_block{segment.address + 120 * kMiB, 80 * kMiB, kAbsent,
                             BlockState::kInactive, kNoStack};
    segment.blocks = {static_cast<std::uint32_t>(s.blocks.size()),
                      static_cast<std::uint32_t>(s.blocks.size() + 1)};
    s.blocks.push_back(used);
    s.blocks.push_back(free_block);
    s.segments.push_back(segment);
  }
  return s;
}

TEST(SnapshotFragmentation, FreeBytesSpreadOverManySegmentsAreReturnable) {
  const MemorySnapshot s = fragmented(8);
  const SnapshotReport report = analyze_memory_snapshot(s, 5);
  ASSERT_EQ(report.devices.size(), 1U);
  const SnapshotDevice& d = report.devices[0];
  ASSERT_TRUE(d.fragmentation_cost.has_value());
  EXPECT_EQ(d.fragmentation_cost->unused_bytes, 640 * kMiB);
  EXPECT_EQ(d.fragmentation_cost->segments_with_unused, 8);
  EXPECT_EQ(d.fragmentation_cost->largest_free_block, 80 * kMiB);
  EXPECT_EQ(d.fragmentation_cost->returnable_bytes, 560 * kMiB);
  EXPECT_DOUBLE_EQ(d.fragmentation_cost->returnable_share, 560.0 / 1600.0);
  // Wide enough that no phrase is wrapped: this test is about the words, not the layout.
  const std::string text = render_snapshot_text(report, TextOptions{5, 1000});
  EXPECT_NE(text.find("expandable_segments:True"), std::string::npos) << text;
  EXPECT_NE(text.find("up to 560.00 MiB"), std::string::npos) << text;
  EXPECT_NE(render_snapshot_json(report, 5).find("\"returnable_bytes\":587202560"),
            std::string::npos);
}

TEST(SnapshotFragmentation, FewSegmentsOrExpandableSegmentsAreNotAdvised) {
  // Three segments: 160 MiB returnable, under 256 MiB and under four segments.
  EXPECT_FALSE(analyze_memory_snapshot(fragmented(3), 5).devices[0].fragmentation_cost);
  // Already expandable: the fix is in use.
  EXPECT_FALSE(analyze_memory_snapshot(fragmented(8, true), 5).devices[0].fragmentation_cost);
}

// A trace of device 0: two allocations, one freed, then an allocation of 2 GiB that fails.
MemorySnapshot out_of_memory() {
  MemorySnapshot s;
  s.device_trace_count = 1;
  const StringId file = s.strings.intern("train.py");
  const StringId model = s.strings.intern("forward");
  const StringId loop = s.strings.intern("train_step");
  s.frames.push_back({file, model, 42});
  s.frames.push_back({file, loop, 7});
  s.stack_frames = {0, 1};
  s.stack_offsets = {0, 2};
  auto add = [&s](SnapshotAction action, std::uint64_t address, std::int64_t size, StackId stack) {
    SnapshotEntry e;
    e.action = action;
    e.device = 0;
    e.address = address;
    e.size = size;
    e.stack = stack;
    s.entries.push_back(e);
  };
  add(SnapshotAction::kAlloc, 0x10, 300 * kMiB, 0);
  add(SnapshotAction::kAlloc, 0x20, 100 * kMiB, kNoStack);
  add(SnapshotAction::kFreeCompleted, 0x20, 100 * kMiB, kNoStack);
  add(SnapshotAction::kOom, 512 * kMiB, 2048 * kMiB, 0);
  s.ooms.push_back(OomRecord{3, 512 * kMiB});
  return s;
}

TEST(SnapshotOom, NamesTheFailedAllocationItsStackAndWhatWasLive) {
  const MemorySnapshot s = out_of_memory();
  const SnapshotReport report = analyze_memory_snapshot(s, 5);
  ASSERT_EQ(report.devices.size(), 1U);
  const SnapshotDevice& d = report.devices[0];
  ASSERT_TRUE(d.last_oom.has_value());
  EXPECT_EQ(d.last_oom->requested_bytes, 2048 * kMiB);
  EXPECT_EQ(d.last_oom->device_free, 512 * kMiB);
  EXPECT_EQ(d.last_oom->stack, 0U);
  EXPECT_EQ(d.last_oom->live_bytes, 300 * kMiB);  // the freed 100 MiB is not live
  ASSERT_EQ(d.last_oom->live_by_site.size(), 1U);
  EXPECT_EQ(describe_frame(s, d.last_oom->live_by_site[0].site), "forward (train.py:42)");
  const std::string text = render_snapshot_text(report, TextOptions{5, 1000});
  EXPECT_NE(text.find("an allocation of 2.00 GiB failed with 512.00 MiB free"), std::string::npos)
      << text;
  EXPECT_NE(text.find("asked for by: forward (train.py:42)"), std::string::npos) << text;
  EXPECT_NE(text.find("train_step (train.py:7)"), std::string::npos) << text;
  const std::string json = render_snapshot_json(report, 5);
  EXPECT_NE(json.find("\"requested_bytes\":2147483648"), std::string::npos) << json;
}

TEST(SnapshotOom, NoOomNoReport) {
  MemorySnapshot s = out_of_memory();
  s.entries.pop_back();
  s.ooms.clear();
  EXPECT_FALSE(analyze_memory_snapshot(s, 5).devices[0].last_oom);
}

}  // namespace
}  // namespace stepscope
