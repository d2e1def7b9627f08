// Figures of a memory snapshot (see snapshot_report.h).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "snapshot/sites.h"
#include "stepscope/snapshot_report.h"
#include "trace/saturating.h"

namespace stepscope {

namespace {

using snapshot_sites::Sites;
using snapshot_sites::SiteTable;

SnapshotDevice& device_slot(std::map<std::int32_t, SnapshotDevice>& devices, std::int32_t id) {
  auto [it, inserted] = devices.try_emplace(id);
  if (inserted) it->second.device = id;
  return it->second;
}

void add_segments(const MemorySnapshot& s, std::map<std::int32_t, SnapshotDevice>& devices,
                  Sites& sites, int top) {
  std::map<std::int32_t, SiteTable> live_sites;
  std::map<std::int32_t, std::vector<LiveBlockRow>> live_blocks;
  for (const SnapshotSegment& segment : s.segments) {
    SnapshotDevice& d = device_slot(devices, segment.device);
    ++d.segments;
    d.large_segments += segment.large ? 1 : 0;
    d.expandable_segments += segment.expandable ? 1 : 0;
    d.reserved_bytes = saturating_add(d.reserved_bytes, segment.total_size);
    d.allocated_bytes = saturating_add(d.allocated_bytes, segment.allocated_size);
    d.active_bytes = saturating_add(d.active_bytes, segment.active_size);
    if (segment.requested_size != kAbsent) {
      d.requested_bytes =
          saturating_add(std::max<std::int64_t>(d.requested_bytes, 0), segment.requested_size);
    }
    for (std::uint32_t b : segment.blocks) {
      const SnapshotBlock& block = s.blocks[b];
      ++d.blocks;
      ++d.blocks_by_state[static_cast<std::size_t>(block.state)];
      if (block.state == BlockState::kInactive) {
        d.inactive_bytes = saturating_add(d.inactive_bytes, block.size);
        d.largest_inactive_block = std::max(d.largest_inactive_block, block.size);
      } else if (block.state == BlockState::kActiveAllocated) {
        const std::uint32_t site = sites.of(block.stack);
        live_sites[segment.device].add(site, block.stack, block.size);
        live_blocks[segment.device].push_back(
            {block.address, block.size, block.requested_size, block.stack, site});
      }
    }
  }
  for (auto& [id, d] : devices) {
    if (d.reserved_bytes > 0) {
      d.fragmentation =
          1.0 - static_cast<double>(d.allocated_bytes) / static_cast<double>(d.reserved_bytes);
    }
    if (d.inactive_bytes > 0) {
      d.inactive_fragmentation = 1.0 - static_cast<double>(d.largest_inactive_block) /
                                           static_cast<double>(d.inactive_bytes);
    }
    d.live_by_site = live_sites[id].largest(top);
    std::vector<LiveBlockRow>& rows = live_blocks[id];
    std::sort(rows.begin(), rows.end(), [](const LiveBlockRow& a, const LiveBlockRow& b) {
      return a.size != b.size ? a.size > b.size : a.address < b.address;
    });
    if (rows.size() > static_cast<std::size_t>(top)) rows.resize(static_cast<std::size_t>(top));
    d.largest_live_blocks = std::move(rows);
  }
}

struct Live {
  std::int64_t size = 0;
  StackId stack = kNoStack;
};

bool ends_allocation(SnapshotAction action, bool from_completed) {
  return action ==
         (from_completed ? SnapshotAction::kFreeCompleted : SnapshotAction::kFreeRequested);
}

// Replays one device's trace: the allocated bytes after each entry, starting from what was
// allocated before the trace began (frees of allocations the trace never saw).
void replay(const MemorySnapshot& s, const std::vector<std::size_t>& entries, SnapshotDevice& d,
            Sites& sites, int top) {
  d.frees_from_completed = std::any_of(entries.begin(), entries.end(), [&s](std::size_t e) {
    return s.entries[e].action == SnapshotAction::kFreeCompleted;
  });
  std::unordered_map<std::uint64_t, Live> live;
  live.reserve(1024);
  for (std::size_t e : entries) {  // first pass: the allocations from before the trace
    const SnapshotEntry& entry = s.entries[e];
    if (entry.action == SnapshotAction::kAlloc) live[entry.address] = {entry.size, entry.stack};
    if (!ends_allocation(entry.action, d.frees_from_completed)) continue;
    if (live.erase(entry.address) == 0)
      d.allocated_before_trace = saturating_add(d.allocated_before_trace, entry.size);
  }
  live.clear();
  std::int64_t current = d.allocated_before_trace;
  d.peak_bytes = current;
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const SnapshotEntry& entry = s.entries[entries[k]];
    if (entry.action == SnapshotAction::kAlloc) {
      live[entry.address] = {entry.size, entry.stack};
      current = saturating_add(current, entry.size);
      if (current > d.peak_bytes) {
        d.peak_bytes = current;
        d.peak_entry = static_cast<std::int64_t>(k);
        d.peak_time_us = entry.time_us;
      }
    } else if (ends_allocation(entry.action, d.frees_from_completed)) {
      auto found = live.find(entry.address);
      current = saturating_sub(current, found != live.end() ? found->second.size : entry.size);
      if (found != live.end()) live.erase(found);
    }
  }
  SiteTable never;
  for (const auto& [address, block] : live) {
    never.add(sites.of(block.stack), block.stack, block.size);
    ++d.never_freed;
    d.never_freed_bytes = saturating_add(d.never_freed_bytes, block.size);
  }
  d.never_freed_by_site = never.largest(top);
  if (d.peak_entry < 0) return;
  live.clear();  // the live set at the peak, replayed up to it
  for (std::size_t k = 0; k <= static_cast<std::size_t>(d.peak_entry); ++k) {
    const SnapshotEntry& entry = s.entries[entries[k]];
    if (entry.action == SnapshotAction::kAlloc) live[entry.address] = {entry.size, entry.stack};
    if (ends_allocation(entry.action, d.frees_from_completed)) live.erase(entry.address);
  }
  SiteTable at_peak;
  for (const auto& [address, block] : live)
    at_peak.add(sites.of(block.stack), block.stack, block.size);
  d.peak_by_site = at_peak.largest(top);
}

void add_traces(const MemorySnapshot& s, std::map<std::int32_t, SnapshotDevice>& devices,
                Sites& sites, int top) {
  std::map<std::int32_t, std::vector<std::size_t>> by_device;
  for (std::size_t e = 0; e < s.entries.size(); ++e) by_device[s.entries[e].device].push_back(e);
  for (auto& [id, entries] : by_device) {
    SnapshotDevice& d = device_slot(devices, id);
    d.entries = static_cast<std::int64_t>(entries.size());
    for (std::size_t e : entries) {
      const SnapshotEntry& entry = s.entries[e];
      ++d.entries_by_action[static_cast<std::size_t>(entry.action)];
      if (entry.time_us != kAbsent) {
        if (d.first_time_us == kAbsent) d.first_time_us = entry.time_us;
        d.last_time_us = entry.time_us;
      }
      if (entry.action == SnapshotAction::kOom) ++d.ooms;
    }
    replay(s, entries, d, sites, top);
  }
  for (const OomRecord& oom : s.ooms) {  // in file order: the last one per device wins
    const std::int32_t device = s.entries[oom.entry].device;
    device_slot(devices, device).last_oom_device_free = oom.device_free;
  }
}

}  // namespace

SnapshotReport analyze_memory_snapshot(const MemorySnapshot& snapshot, int top) {
  top = std::max(top, 1);
  std::map<std::int32_t, SnapshotDevice> devices;
  Sites sites(snapshot);
  add_segments(snapshot, devices, sites, top);
  add_traces(snapshot, devices, sites, top);
  for (auto& [id, device] : devices) add_snapshot_advice(snapshot, device, top);
  SnapshotReport report;
  report.snapshot = &snapshot;
  for (auto& [id, device] : devices) report.devices.push_back(std::move(device));
  return report;
}

std::string describe_frame(const MemorySnapshot& snapshot, std::uint32_t frame) {
  if (frame == kNoFrame || frame >= snapshot.frames.size()) return "(no stack recorded)";
  const SnapshotFrame& f = snapshot.frames[frame];
  return fmt::format("{} ({}:{})", snapshot.strings.view(f.name), snapshot.strings.view(f.filename),
                     f.line);
}

}  // namespace stepscope
