// The headroom of each GPU and the lifetimes of what is live at its peak (memory_headroom.h).
#include "stepscope/analysis/memory_headroom.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "trace/saturating.h"

namespace stepscope {

namespace {

constexpr std::int8_t kCuda = 1;
constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

struct Allocation {
  std::size_t record = 0;
  std::size_t free_record = kNever;  // the record that frees it; kNever when none does
};

bool on_device(const MemoryTable& m, std::size_t r, const DeviceMemory& device) {
  return m.device_type[r] == device.device_type && m.device_id[r] == device.device_id;
}

// The first record of the device that reaches its allocation peak (the curve's peak).
std::size_t peak_record(const MemoryTable& m, const DeviceMemory& device) {
  for (std::size_t r = 0; r < m.size(); ++r) {
    if (on_device(m, r, device) && m.total_allocated[r] == device.peak_allocated &&
        m.time_ns[r] == device.peak_allocated_time_ns) {
      return r;
    }
  }
  return m.size();
}

// Every allocation of the device with the record that frees it (a free ends the latest
// allocation at its address, as in the memory curve).
std::vector<Allocation> allocations_of(const MemoryTable& m, const DeviceMemory& device) {
  std::vector<Allocation> out;
  std::unordered_map<std::uint64_t, std::size_t> open;
  for (std::size_t r = 0; r < m.size(); ++r) {
    if (!on_device(m, r, device)) continue;
    if (m.bytes[r] > 0) {
      open[m.address[r]] = out.size();
      out.push_back(Allocation{r, kNever});
    } else if (m.bytes[r] < 0) {
      if (auto it = open.find(m.address[r]); it != open.end()) {
        out[it->second].free_record = r;
        open.erase(it);
      }
    }
  }
  return out;
}

const Step* step_around(const StepsResult& steps, std::int64_t t) {
  for (const Step& step : steps.steps) {
    if (step.host_start_ns <= t && t < step.host_end_ns) return &step;
  }
  return nullptr;
}

bool in_forward(const Trace& trace, EventIndex op) {
  for (EventIndex at = op; at != kNoEvent; at = trace.events.parent[at]) {
    if (const std::optional<Phase> phase = phase_of_marker(trace, at)) {
      return *phase == Phase::kForward;
    }
  }
  return false;
}

void add_held(std::map<std::string, HeldBy>& groups, std::string_view op, std::int64_t bytes,
              std::int64_t time_ns) {
  auto [it, inserted] = groups.try_emplace(std::string(op));
  HeldBy& held = it->second;
  if (inserted) {
    held.op = std::string(op);
    held.first_time_ns = time_ns;
    held.last_time_ns = time_ns;
  }
  held.bytes = saturating_add(held.bytes, bytes);
  ++held.count;
  held.first_time_ns = std::min(held.first_time_ns, time_ns);
  held.last_time_ns = std::max(held.last_time_ns, time_ns);
}

std::vector<HeldBy> largest(std::map<std::string, HeldBy>& groups, int top) {
  std::vector<HeldBy> rows;
  rows.reserve(groups.size());
  for (auto& [name, held] : groups) rows.push_back(std::move(held));
  std::sort(rows.begin(), rows.end(), [](const HeldBy& a, const HeldBy& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.op < b.op;
  });
  rows.resize(std::min(rows.size(), static_cast<std::size_t>(std::max(top, 1))));
  return rows;
}

// Splits what is live at record `peak` by lifetime (see DeviceHeadroom).
void split_by_lifetime(const Trace& trace, const StepsResult& steps,
                       const MemoryCurveResult& memory, const DeviceMemory& device,
                       std::size_t peak, int top, DeviceHeadroom& out) {
  const MemoryTable& m = trace.memory;
  const Step* step = step_around(steps, m.time_ns[peak]);
  std::map<std::string, HeldBy> long_lived;
  std::map<std::string, HeldBy> step_scoped;
  std::int64_t tracked = 0;
  for (const Allocation& a : allocations_of(m, device)) {
    if (a.record > peak || (a.free_record != kNever && a.free_record <= peak)) continue;
    const std::int64_t bytes = m.bytes[a.record];
    const std::int64_t allocated_ns = m.time_ns[a.record];
    const bool freed = a.free_record != kNever;
    const bool scoped = step != nullptr ? allocated_ns >= step->host_start_ns && freed &&
                                              m.time_ns[a.free_record] < step->host_end_ns
                                        : freed;
    const EventIndex op = memory.op_of_record[a.record];
    const std::string_view name = op == kNoEvent ? "(no op)" : trace.name_of(op);
    tracked = saturating_add(tracked, bytes);
    if (scoped) {
      out.step_scoped_bytes = saturating_add(out.step_scoped_bytes, bytes);
      if (op != kNoEvent && in_forward(trace, op)) {
        out.step_scoped_forward_bytes = saturating_add(out.step_scoped_forward_bytes, bytes);
      }
      add_held(step_scoped, name, bytes, allocated_ns);
    } else {
      out.long_lived_bytes = saturating_add(out.long_lived_bytes, bytes);
      add_held(long_lived, name, bytes, allocated_ns);
    }
  }
  // Allocated before the first record (parameters loaded before profiling began): no record
  // allocates it, yet Total Allocated counts it.
  out.before_trace_bytes =
      std::max<std::int64_t>(0, saturating_sub(device.peak_allocated, tracked));
  out.long_lived_bytes = saturating_add(out.long_lived_bytes, out.before_trace_bytes);
  out.long_lived_by_op = largest(long_lived, top);
  out.step_scoped_by_op = largest(step_scoped, top);
}

DeviceHeadroom analyse(const Trace& trace, const StepsResult& steps,
                       const MemoryCurveResult& memory, const DeviceMemory& device,
                       std::int64_t total, int top) {
  DeviceHeadroom out;
  out.device_id = device.device_id;
  out.label = device.label;
  out.total_bytes = total;
  out.peak_allocated = device.peak_allocated;
  out.peak_reserved = device.peak_reserved;
  out.peak_bytes = std::max(device.peak_allocated, device.peak_reserved);
  out.headroom_bytes = saturating_sub(total, out.peak_bytes);
  out.headroom_share = static_cast<double>(out.headroom_bytes) / static_cast<double>(total);
  out.peak_time_ns = device.peak_allocated_time_ns;
  out.peak_phase = device.peak_phase;
  out.peak_step = device.peak_step;
  if (device.peak_op != kNoEvent) out.peak_op = std::string(trace.name_of(device.peak_op));
  const std::size_t peak = peak_record(trace.memory, device);
  if (peak < trace.memory.size()) split_by_lifetime(trace, steps, memory, device, peak, top, out);
  return out;
}

}  // namespace

MemoryHeadroomResult compute_memory_headroom(const Trace& trace, const StepsResult& steps,
                                             const MemoryCurveResult& memory, int top) {
  MemoryHeadroomResult result;
  if (!memory.applicable || memory.op_of_record.size() != trace.memory.size()) return result;
  for (const DeviceMemory& device : memory.devices) {
    if (device.device_type != kCuda || device.peak_allocated < 0) continue;
    const DeviceProperties* properties = trace.device_properties(device.device_id);
    if (properties == nullptr || properties->total_global_memory <= 0) continue;
    result.devices.push_back(
        analyse(trace, steps, memory, device, properties->total_global_memory, top));
  }
  return result;
}

}  // namespace stepscope
