// What a snapshot advises (snapshot_report.h): fragmentation that costs capacity, and the
// allocation that failed with out-of-memory.
#include <unordered_map>

#include "snapshot/sites.h"
#include "stepscope/snapshot_report.h"
#include "trace/saturating.h"

namespace stepscope {

namespace {

// Fragmentation is worth a fix when the free bytes no large request can use are at least 10 %
// of the reservation and 256 MiB, spread over at least 4 segments: below that the unused
// reservation is the ordinary slack of the caching allocator's rounding.
constexpr double kMinReturnableShare = 0.10;
constexpr std::int64_t kMinReturnableBytes = std::int64_t{256} << 20;
constexpr std::int64_t kMinSegments = 4;

std::optional<FragmentationCost> fragmentation_cost(const MemorySnapshot& s,
                                                    const SnapshotDevice& d) {
  // Expandable segments already map free pages back and grow in place: the fix is in use.
  if (d.expandable_segments > 0 || d.reserved_bytes <= 0) return std::nullopt;
  FragmentationCost cost;
  for (const SnapshotSegment& segment : s.segments) {
    if (segment.device != d.device) continue;
    std::int64_t unused = 0;
    for (std::uint32_t b : segment.blocks) {
      const SnapshotBlock& block = s.blocks[b];
      if (block.state != BlockState::kInactive) continue;
      unused = saturating_add(unused, block.size);
      cost.largest_free_block = std::max(cost.largest_free_block, block.size);
    }
    if (unused > 0) ++cost.segments_with_unused;
    cost.unused_bytes = saturating_add(cost.unused_bytes, unused);
  }
  cost.returnable_bytes = saturating_sub(cost.unused_bytes, cost.largest_free_block);
  cost.returnable_share =
      static_cast<double>(cost.returnable_bytes) / static_cast<double>(d.reserved_bytes);
  if (cost.segments_with_unused < kMinSegments || cost.returnable_bytes < kMinReturnableBytes ||
      cost.returnable_share < kMinReturnableShare) {
    return std::nullopt;
  }
  return cost;
}

bool ends_allocation(SnapshotAction action, bool from_completed) {
  return action ==
         (from_completed ? SnapshotAction::kFreeCompleted : SnapshotAction::kFreeRequested);
}

// The device's last `oom` entry, with what its trace had live when it happened.
std::optional<OomReport> last_oom(const MemorySnapshot& s, const SnapshotDevice& d, int top) {
  std::optional<OomReport> oom;
  for (const OomRecord& record : s.ooms) {  // in file order: the last one wins
    const SnapshotEntry& entry = s.entries[record.entry];
    if (entry.device != d.device) continue;
    oom = OomReport{};
    oom->entry = record.entry;
    oom->requested_bytes = entry.size;
    oom->device_free = record.device_free;
    oom->time_us = entry.time_us;
    oom->stack = entry.stack;
  }
  if (!oom) return oom;
  struct Live {
    std::int64_t size = 0;
    StackId stack = kNoStack;
  };
  std::unordered_map<std::uint64_t, Live> live;
  for (std::size_t e = 0; e < oom->entry; ++e) {
    const SnapshotEntry& entry = s.entries[e];
    if (entry.device != d.device) continue;
    if (entry.action == SnapshotAction::kAlloc) live[entry.address] = {entry.size, entry.stack};
    if (ends_allocation(entry.action, d.frees_from_completed)) live.erase(entry.address);
  }
  snapshot_sites::Sites sites(s);
  snapshot_sites::SiteTable table;
  oom->live_bytes = d.allocated_before_trace;
  for (const auto& [address, block] : live) {
    oom->live_bytes = saturating_add(oom->live_bytes, block.size);
    table.add(sites.of(block.stack), block.stack, block.size);
  }
  oom->live_by_site = table.largest(top);
  return oom;
}

}  // namespace

void add_snapshot_advice(const MemorySnapshot& snapshot, SnapshotDevice& device, int top) {
  device.fragmentation_cost = fragmentation_cost(snapshot, device);
  device.last_oom = last_oom(snapshot, device, std::max(top, 1));
}

}  // namespace stepscope
