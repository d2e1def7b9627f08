// What a memory snapshot says, per device: the allocator's state when it was taken (reserved,
// allocated, fragmentation, the largest live blocks and where they were allocated) and, from the
// allocation trace, the peak, what was live at the peak, and what was never freed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stepscope/snapshot.h"
#include "stepscope/text_options.h"

namespace stepscope {

inline constexpr std::uint32_t kNoFrame = 0xffffffffU;

// Allocations grouped by their site: the innermost frame in the user's own code (a .py file
// outside torch), else the innermost Python frame, else the innermost frame.
struct SiteBytes {
  std::uint32_t site = kNoFrame;  // frame index; kNoFrame when no stack was recorded
  StackId example_stack = kNoStack;
  std::int64_t bytes = 0;
  std::int64_t count = 0;
};

struct LiveBlockRow {
  std::uint64_t address = 0;
  std::int64_t size = 0;
  std::int64_t requested_size = kAbsent;
  StackId stack = kNoStack;
  std::uint32_t site = kNoFrame;
};

// Fragmentation that costs capacity (snapshot_advice.cpp): bytes the allocator reserves but no
// tensor uses, spread over several segments, so an allocation larger than the largest free block
// needs a new segment although the bytes are there. Set only past the documented thresholds.
struct FragmentationCost {
  std::int64_t unused_bytes = 0;  // inactive blocks
  std::int64_t segments_with_unused = 0;
  std::int64_t largest_free_block = 0;
  // Up to this much becomes usable by any allocation with expandable segments: the free bytes
  // outside the largest free block, which today serve no request larger than that block.
  std::int64_t returnable_bytes = 0;
  double returnable_share = 0;  // of the reserved bytes
};

// The allocation that failed with out-of-memory (the last `oom` action of the device's trace).
struct OomReport {
  std::size_t entry = 0;               // index into MemorySnapshot::entries
  std::int64_t requested_bytes = 0;    // the size asked for
  std::int64_t device_free = kAbsent;  // what the driver still had free, bytes
  std::int64_t time_us = kAbsent;
  StackId stack = kNoStack;             // the stack that asked for it
  std::int64_t live_bytes = 0;          // allocated when it failed (trace replay)
  std::vector<SiteBytes> live_by_site;  // what was live then, largest first
};

struct SnapshotDevice {
  std::int32_t device = 0;
  // The allocator's state when the snapshot was taken (segments and blocks).
  std::int64_t segments = 0;
  std::int64_t large_segments = 0;
  std::int64_t expandable_segments = 0;
  std::int64_t reserved_bytes = 0;
  std::int64_t allocated_bytes = 0;
  std::int64_t active_bytes = 0;
  std::int64_t requested_bytes = kAbsent;
  std::int64_t blocks = 0;
  std::array<std::int64_t, 4> blocks_by_state{};  // indexed by BlockState
  std::int64_t inactive_bytes = 0;
  std::int64_t largest_inactive_block = 0;
  std::optional<double> fragmentation;           // 1 - allocated / reserved
  std::optional<double> inactive_fragmentation;  // 1 - largest free block / free bytes
  std::vector<LiveBlockRow> largest_live_blocks;
  std::vector<SiteBytes> live_by_site;

  // The allocation trace (record_memory_history).
  std::int64_t entries = 0;
  std::array<std::int64_t, 10> entries_by_action{};  // indexed by SnapshotAction
  std::int64_t first_time_us = kAbsent;
  std::int64_t last_time_us = kAbsent;
  bool frees_from_completed = true;  // free_completed ends an allocation (else free_requested)
  std::int64_t allocated_before_trace = 0;  // freed in the trace, allocated before it
  std::int64_t peak_bytes = 0;              // allocated, counting allocated_before_trace
  std::int64_t peak_entry = -1;             // index of the entry that reached the peak
  std::int64_t peak_time_us = kAbsent;
  std::vector<SiteBytes> peak_by_site;  // allocations of the trace live at the peak
  std::int64_t never_freed = 0;         // allocated in the trace and not freed in it
  std::int64_t never_freed_bytes = 0;
  std::vector<SiteBytes> never_freed_by_site;
  std::int64_t ooms = 0;
  std::int64_t last_oom_device_free = kAbsent;
  std::optional<FragmentationCost> fragmentation_cost;
  std::optional<OomReport> last_oom;
};

struct SnapshotReport {
  const MemorySnapshot* snapshot = nullptr;
  std::vector<SnapshotDevice> devices;
  double load_seconds = 0;
  double analysis_seconds = 0;
};

SnapshotReport analyze_memory_snapshot(const MemorySnapshot& snapshot, int top);

// The advice of snapshot_advice.cpp, run by analyze_memory_snapshot: fills fragmentation_cost
// and last_oom of `device` (whose segment and trace figures are already computed).
void add_snapshot_advice(const MemorySnapshot& snapshot, SnapshotDevice& device, int top);

// "name (file:line)" of a frame, for renderers.
std::string describe_frame(const MemorySnapshot& snapshot, std::uint32_t frame);

std::string render_snapshot_json(const SnapshotReport& report, int top);
std::string render_snapshot_text(const SnapshotReport& report, const TextOptions& options);
std::string render_snapshot_text(const SnapshotReport& report, int top);  // 100 columns

}  // namespace stepscope
