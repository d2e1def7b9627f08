// Memory curve, peaks and per-step view from `[memory]` records (see memory_curve.h).
#include "stepscope/analysis/memory_curve.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "trace/saturating.h"

namespace stepscope {

namespace {

constexpr std::int8_t kCuda = 1;
constexpr std::int8_t kCpu = 0;

struct DeviceKey {
  std::int8_t type = 0;
  std::int16_t id = -1;
  bool operator==(const DeviceKey&) const = default;
};

// GPUs first (by id), then the CPU, then any other device type: the order people read them in.
int device_rank(std::int8_t type) {
  if (type == kCuda) return 0;
  if (type == kCpu) return 1;
  return 2;
}

std::vector<DeviceKey> devices_in(const MemoryTable& m) {
  std::vector<DeviceKey> keys;
  for (std::size_t r = 0; r < m.size(); ++r) {
    const DeviceKey key{m.device_type[r], m.device_id[r]};
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end(), [](const DeviceKey& a, const DeviceKey& b) {
    if (device_rank(a.type) != device_rank(b.type)) {
      return device_rank(a.type) < device_rank(b.type);
    }
    return a.type != b.type ? a.type < b.type : a.id < b.id;
  });
  return keys;
}

// For every record, the innermost op on its thread whose span contains the record's time. One
// sweep over events (sorted by start, longer first) and records (sorted by time), with a stack
// of open ops per thread.
std::vector<EventIndex> op_of_records(const Trace& trace) {
  const EventTable& e = trace.events;
  const MemoryTable& m = trace.memory;
  std::unordered_map<std::uint32_t, std::vector<EventIndex>> open;
  std::vector<EventIndex> result(m.size(), kNoEvent);
  auto close_before = [&e](std::vector<EventIndex>& stack, std::int64_t t) {
    while (!stack.empty() && e.end_ns(stack.back()) < t) stack.pop_back();
  };
  std::size_t next = 0;
  for (std::size_t r = 0; r < m.size(); ++r) {
    const std::int64_t t = m.time_ns[r];
    for (; next < e.size() && e.start_ns[next] <= t; ++next) {
      const auto i = static_cast<EventIndex>(next);
      if (e.event_class[i] != EventClass::kOp) continue;
      std::vector<EventIndex>& stack = open[e.thread[i]];
      close_before(stack, e.start_ns[i]);
      stack.push_back(i);
    }
    auto found = open.find(m.thread[r]);
    if (found == open.end()) continue;
    close_before(found->second, t);
    if (!found->second.empty()) result[r] = found->second.back();
  }
  return result;
}

struct LiveBlock {
  std::int64_t bytes = 0;
  EventIndex op = kNoEvent;
  std::int64_t time_ns = 0;
};
using LiveMap = std::unordered_map<std::uint64_t, LiveBlock>;

// Applies one record to the live allocations: a free ends the latest allocation at its address.
void apply(LiveMap& live, const MemoryTable& m, std::size_t r, EventIndex op) {
  if (m.bytes[r] > 0) {
    live[m.address[r]] = LiveBlock{m.bytes[r], op, m.time_ns[r]};
  } else if (m.bytes[r] < 0) {
    live.erase(m.address[r]);
  }
}

std::vector<LiveAllocations> by_op(const Trace& trace, const LiveMap& live, int top) {
  std::map<StringId, LiveAllocations> groups;
  LiveAllocations unattributed{"(no op)", 0, 0, 0};
  for (const auto& [address, block] : live) {
    LiveAllocations* group = &unattributed;
    if (block.op != kNoEvent) {
      auto [it, inserted] = groups.try_emplace(trace.events.name[block.op]);
      if (inserted) it->second.op = std::string(trace.name_of(block.op));
      group = &it->second;
    }
    if (group->count == 0 || block.time_ns < group->first_time_ns) {
      group->first_time_ns = block.time_ns;
    }
    group->bytes = saturating_add(group->bytes, block.bytes);
    ++group->count;
  }
  std::vector<LiveAllocations> rows;
  rows.reserve(groups.size() + 1);
  for (auto& [name, group] : groups) rows.push_back(std::move(group));
  if (unattributed.count > 0) rows.push_back(unattributed);
  std::sort(rows.begin(), rows.end(), [](const LiveAllocations& a, const LiveAllocations& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.op < b.op;
  });
  if (rows.size() > static_cast<std::size_t>(std::max(top, 1))) {
    rows.resize(static_cast<std::size_t>(std::max(top, 1)));
  }
  return rows;
}

void add_to_curve(DeviceMemory& device, const MemoryTable& m, std::size_t r) {
  const MemoryPoint point{m.time_ns[r], m.total_allocated[r], m.total_reserved[r], m.bytes[r]};
  if (!device.curve.empty()) {
    const std::int64_t before = device.curve.back().reserved;
    if (before >= 0 && point.reserved > before) ++device.reserved_increases;
    if (before >= 0 && point.reserved >= 0 && point.reserved < before) {
      ++device.reserved_decreases;
    }
  }
  if (point.allocated > device.peak_allocated) {
    device.peak_allocated = point.allocated;
    device.peak_allocated_time_ns = point.time_ns;
    device.reserved_at_peak = point.reserved;
  }
  if (point.reserved > device.peak_reserved) {
    device.peak_reserved = point.reserved;
    device.peak_reserved_time_ns = point.time_ns;
  }
  device.curve.push_back(point);
}

// The innermost phase marker around an op, walking out through its parents.
std::optional<Phase> phase_around(const Trace& trace, EventIndex op) {
  for (EventIndex at = op; at != kNoEvent; at = trace.events.parent[at]) {
    if (const std::optional<Phase> phase = phase_of_marker(trace, at)) return phase;
  }
  return std::nullopt;
}

std::optional<std::int64_t> step_containing(const StepsResult& steps, std::int64_t t) {
  for (const Step& step : steps.steps) {
    if (step.host_start_ns <= t && t < step.host_end_ns) return step.number;
  }
  return std::nullopt;
}

std::int64_t allocated_before_first_record(const DeviceMemory& device, std::int64_t start,
                                           std::int64_t end) {
  auto inside =
      std::lower_bound(device.curve.begin(), device.curve.end(), start,
                       [](const MemoryPoint& p, std::int64_t t) { return p.time_ns < t; });
  if (inside == device.curve.end() || inside->time_ns >= end) return -1;
  return saturating_sub(inside->allocated, inside->change);
}

std::vector<StepMemory> per_step(const DeviceMemory& device, const StepsResult& steps) {
  std::vector<StepMemory> rows;
  for (const Step& step : steps.steps) {
    StepMemory row;
    row.step = step.number;
    row.kept = step.kept();
    const MemoryPoint* at_start = point_at(device, step.host_start_ns);
    row.allocated_at_start =
        at_start != nullptr
            ? at_start->allocated
            : allocated_before_first_record(device, step.host_start_ns, step.host_end_ns);
    const MemoryPoint* at_end = point_at(device, step.host_end_ns);
    row.allocated_at_end = at_end != nullptr ? at_end->allocated : -1;
    row.peak_allocated = row.allocated_at_start;
    auto it = std::upper_bound(device.curve.begin(), device.curve.end(), step.host_start_ns,
                               [](std::int64_t t, const MemoryPoint& p) { return t < p.time_ns; });
    for (; it != device.curve.end() && it->time_ns < step.host_end_ns; ++it) {
      row.peak_allocated = std::max(row.peak_allocated, it->allocated);
    }
    rows.push_back(row);
  }
  return rows;
}

DeviceMemory analyse_device(const Trace& trace, const StepsResult& steps, DeviceKey key,
                            const std::vector<EventIndex>& ops, int top) {
  const MemoryTable& m = trace.memory;
  DeviceMemory device;
  device.device_type = key.type;
  device.device_id = key.id;
  device.label = device_label(key.type, key.id);
  LiveMap live;
  std::size_t peak_record = m.size();
  for (std::size_t r = 0; r < m.size(); ++r) {
    if (m.device_type[r] != key.type || m.device_id[r] != key.id) continue;
    ++device.records;
    if (m.bytes[r] > 0) ++device.allocations;
    if (m.bytes[r] < 0) ++device.frees;
    apply(live, m, r, ops[r]);
    if (m.total_allocated[r] < 0) continue;
    if (m.total_allocated[r] > device.peak_allocated) peak_record = r;
    add_to_curve(device, m, r);
  }
  device.never_freed = static_cast<std::int64_t>(live.size());
  for (const auto& [address, block] : live) {
    device.never_freed_bytes = saturating_add(device.never_freed_bytes, block.bytes);
  }
  device.never_freed_by_op = by_op(trace, live, top);
  if (!device.curve.empty()) {
    device.first_allocated = device.curve.front().allocated;
    device.allocated_before_first_record =
        saturating_sub(device.curve.front().allocated, device.curve.front().change);
    device.last_allocated = device.curve.back().allocated;
  }
  if (device.reserved_at_peak > 0) {
    device.fragmentation_at_peak = 1.0 - static_cast<double>(device.peak_allocated) /
                                             static_cast<double>(device.reserved_at_peak);
  }
  if (peak_record < m.size()) {
    LiveMap at_peak;
    for (std::size_t r = 0; r <= peak_record; ++r) {
      if (m.device_type[r] == key.type && m.device_id[r] == key.id) apply(at_peak, m, r, ops[r]);
    }
    device.live_at_peak_by_op = by_op(trace, at_peak, top);
    device.peak_op = ops[peak_record];
    if (device.peak_op != kNoEvent) device.peak_phase = phase_around(trace, device.peak_op);
    device.peak_step = step_containing(steps, m.time_ns[peak_record]);
  }
  device.steps = per_step(device, steps);
  return device;
}

}  // namespace

std::string device_label(std::int8_t device_type, std::int16_t device_id) {
  if (device_type == kCuda) return fmt::format("GPU {}", device_id);
  if (device_type == kCpu) return "CPU";
  return fmt::format("device type {} id {}", device_type, device_id);
}

const MemoryPoint* point_at(const DeviceMemory& device, std::int64_t t) {
  auto after =
      std::upper_bound(device.curve.begin(), device.curve.end(), t,
                       [](std::int64_t time, const MemoryPoint& p) { return time < p.time_ns; });
  return after == device.curve.begin() ? nullptr : &*(after - 1);
}

MemoryCurveResult compute_memory_curve(const Trace& trace, const StepsResult& steps, int top) {
  MemoryCurveResult result;
  if (trace.memory.size() == 0) {
    result.not_applicable_reason =
        "the trace has no [memory] events: profile with profile_memory=True";
    return result;
  }
  result.applicable = true;
  result.origin_ns = trace.memory.time_ns.front();
  if (trace.events.size() > 0)
    result.origin_ns = std::min(result.origin_ns, trace.events.start_ns[0]);
  result.op_of_record = op_of_records(trace);
  for (DeviceKey key : devices_in(trace.memory)) {
    result.devices.push_back(analyse_device(trace, steps, key, result.op_of_record, top));
  }
  return result;
}

}  // namespace stepscope
