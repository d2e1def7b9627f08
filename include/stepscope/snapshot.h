// PyTorch CUDA memory snapshots: the pickle that torch.cuda.memory._dump_snapshot() writes (a
// dict of `segments`, each with its `blocks`, and `device_traces`, one list of allocator actions
// per device, each with the stack `frames` that caused it). Read by a small pickle interpreter
// that never executes anything, into compact tables: frames and stacks are deduplicated, as the
// snapshot itself shares them.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "stepscope/error.h"
#include "stepscope/load.h"
#include "stepscope/trace.h"

namespace stepscope {

struct SnapshotFrame {
  StringId filename = 0;
  StringId name = 0;
  std::int64_t line = 0;
};

using StackId = std::uint32_t;
inline constexpr StackId kNoStack = 0xffffffffU;

enum class SnapshotAction : std::uint8_t {
  kAlloc,
  kFreeRequested,
  kFreeCompleted,
  kSegmentAlloc,
  kSegmentFree,
  kSegmentMap,
  kSegmentUnmap,
  kSnapshot,
  kOom,
  kOther,
};
[[nodiscard]] std::string_view to_string(SnapshotAction action);

struct SnapshotEntry {
  std::uint64_t address = 0;
  std::int64_t size = 0;
  std::int64_t stream = 0;
  std::int64_t time_us = kAbsent;  // torch >= 2.1 records it
  StackId stack = kNoStack;
  std::int32_t device = -1;  // index in device_traces
  SnapshotAction action = SnapshotAction::kOther;
};

struct OomRecord {
  std::size_t entry = 0;               // index into MemorySnapshot::entries
  std::int64_t device_free = kAbsent;  // what the driver still had free, bytes
};

enum class BlockState : std::uint8_t { kActiveAllocated, kActivePendingFree, kInactive, kOther };
[[nodiscard]] std::string_view to_string(BlockState state);

struct SnapshotBlock {
  std::uint64_t address = 0;
  std::int64_t size = 0;
  std::int64_t requested_size = kAbsent;
  BlockState state = BlockState::kOther;
  StackId stack = kNoStack;
};

struct SnapshotSegment {
  std::int32_t device = -1;
  std::uint64_t address = 0;
  std::int64_t total_size = 0;
  std::int64_t allocated_size = 0;
  std::int64_t active_size = 0;
  std::int64_t requested_size = kAbsent;
  std::int64_t stream = 0;
  bool large = true;  // segment_type "large" (blocks > 1 MiB) or "small"
  bool expandable = false;
  std::vector<std::uint32_t> blocks;  // indices into MemorySnapshot::blocks
};

struct MemorySnapshot {
  std::string source_path;
  std::uint64_t input_bytes = 0;
  StringPool strings;
  std::vector<SnapshotFrame> frames;
  std::vector<std::uint32_t> stack_offsets{0};  // stack s: frames [offsets[s], offsets[s + 1])
  std::vector<std::uint32_t> stack_frames;
  std::vector<SnapshotSegment> segments;
  std::vector<SnapshotBlock> blocks;
  // In trace order per device. A deque: millions of entries, and no copy of them all while it
  // grows (the reader's peak memory must stay below the snapshot's size).
  std::deque<SnapshotEntry> entries;
  std::vector<OomRecord> ooms;
  std::int32_t device_trace_count = 0;

  [[nodiscard]] std::span<const std::uint32_t> stack(StackId id) const&;
  std::span<const std::uint32_t> stack(StackId id) && = delete;  // would dangle
  [[nodiscard]] std::size_t bytes() const;                       // held in memory
};

// Reads a snapshot file (plain or gzip). Errors name the file and the byte offset. `progress`
// (may be empty) hears of the bytes read so far, for a progress line on a terminal.
Result<MemorySnapshot> load_memory_snapshot(const std::string& path,
                                            const ProgressCallback& progress = {});
// The same from bytes in memory (tests, fuzzing); `name` stands for the file in errors.
Result<MemorySnapshot> load_memory_snapshot_bytes(const char* data, std::size_t size,
                                                  const std::string& name);

}  // namespace stepscope
