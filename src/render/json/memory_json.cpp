#include "render/json/memory_json.h"

#include <algorithm>

#include "render/downsample.h"

namespace stepscope::render {

namespace {

void write_bytes_or_null(JsonWriter& json, std::string_view name, std::int64_t bytes) {
  json.key(name);
  if (bytes < 0) {
    json.null();
  } else {
    json.value(bytes);
  }
}

void write_by_op(JsonWriter& json, const std::vector<LiveAllocations>& rows) {
  json.begin_array();
  for (const LiveAllocations& row : rows) {
    json.begin_object();
    json.field("op", row.op);
    json.field("bytes", row.bytes);
    json.field("allocations", row.count);
    json.field_us("first_allocation_us", row.first_time_ns);
    json.end_object();
  }
  json.end_array();
}

void write_steps(JsonWriter& json, const std::vector<StepMemory>& steps) {
  json.begin_array();
  for (const StepMemory& step : steps) {
    json.begin_object();
    json.field("step", step.step);
    json.field("kept", step.kept);
    write_bytes_or_null(json, "allocated_at_start_bytes", step.allocated_at_start);
    write_bytes_or_null(json, "allocated_at_end_bytes", step.allocated_at_end);
    write_bytes_or_null(json, "peak_allocated_bytes", step.peak_allocated);
    json.end_object();
  }
  json.end_array();
}

void write_curve(JsonWriter& json, const DeviceMemory& device) {
  const std::vector<std::size_t> kept = curve_points_to_draw(device, kMemoryCurvePoints);
  json.begin_object();
  json.field("points_total", static_cast<std::uint64_t>(device.curve.size()));
  json.field("downsampled", kept.size() < device.curve.size() ? "lttb" : "none");
  json.key("columns");
  json.begin_array();
  for (const char* column : {"time_us", "allocated_bytes", "reserved_bytes"}) json.value(column);
  json.end_array();
  json.key("points");
  json.begin_array();
  for (std::size_t i : kept) {
    const MemoryPoint& p = device.curve[i];
    json.begin_array();
    json.microseconds(p.time_ns);
    json.value(p.allocated);
    if (p.reserved < 0) {
      json.null();
    } else {
      json.value(p.reserved);
    }
    json.end_array();
  }
  json.end_array();
  json.end_object();
}

void write_peak(JsonWriter& json, const Trace& trace, const DeviceMemory& device) {
  json.begin_object();
  write_bytes_or_null(json, "allocated_bytes", device.peak_allocated);
  json.field_us("time_us", device.peak_allocated_time_ns);
  write_bytes_or_null(json, "reserved_bytes", device.reserved_at_peak);
  json.key("step");
  if (device.peak_step) {
    json.value(*device.peak_step);
  } else {
    json.null();
  }
  json.key("op");
  if (device.peak_op != kNoEvent) {
    json.value(trace.name_of(device.peak_op));
  } else {
    json.null();
  }
  json.key("phase");
  if (device.peak_phase) {
    json.value(to_string(*device.peak_phase));
  } else {
    json.null();
  }
  json.key("live_by_op");
  write_by_op(json, device.live_at_peak_by_op);
  json.end_object();
}

void write_device(JsonWriter& json, const Trace& trace, const DeviceMemory& device) {
  json.begin_object();
  json.field("device", device.label);
  json.field("device_type", static_cast<std::int64_t>(device.device_type));
  json.field("device_id", static_cast<std::int64_t>(device.device_id));
  json.field("records", device.records);
  json.field("allocations", device.allocations);
  json.field("frees", device.frees);
  json.field("never_freed", device.never_freed);
  json.field("never_freed_bytes", device.never_freed_bytes);
  json.key("never_freed_by_op");
  write_by_op(json, device.never_freed_by_op);
  write_bytes_or_null(json, "peak_allocated_bytes", device.peak_allocated);
  write_bytes_or_null(json, "peak_reserved_bytes", device.peak_reserved);
  json.field_us("peak_reserved_time_us", device.peak_reserved_time_ns);
  write_bytes_or_null(json, "first_allocated_bytes", device.first_allocated);
  write_bytes_or_null(json, "last_allocated_bytes", device.last_allocated);
  write_bytes_or_null(json, "allocated_before_first_record_bytes",
                      device.allocated_before_first_record);
  json.key("fragmentation_at_peak");
  if (device.fragmentation_at_peak) {
    json.value(*device.fragmentation_at_peak);
  } else {
    json.null();
  }
  json.field("reserved_increases", device.reserved_increases);
  json.field("reserved_decreases", device.reserved_decreases);
  json.key("peak");
  write_peak(json, trace, device);
  json.key("steps");
  write_steps(json, device.steps);
  json.key("curve");
  write_curve(json, device);
  json.end_object();
}

}  // namespace

std::vector<std::size_t> curve_points_to_draw(const DeviceMemory& device, std::size_t target) {
  std::vector<SeriesPoint> series;
  series.reserve(device.curve.size());
  for (const MemoryPoint& p : device.curve) {
    series.push_back({static_cast<double>(p.time_ns), static_cast<double>(p.allocated)});
  }
  std::vector<std::size_t> kept = lttb_indices(series, target);
  auto peak = std::find_if(device.curve.begin(), device.curve.end(), [&device](const auto& p) {
    return p.allocated == device.peak_allocated;
  });
  if (peak != device.curve.end()) {
    const auto index = static_cast<std::size_t>(peak - device.curve.begin());
    auto at = std::lower_bound(kept.begin(), kept.end(), index);
    if (at == kept.end() || *at != index) kept.insert(at, index);
  }
  return kept;
}

void write_json(JsonWriter& json, const Trace& trace, const MemoryCurveResult& memory) {
  json.begin_object();
  json.field("applicable", memory.applicable);
  if (!memory.applicable) json.field("not_applicable_reason", memory.not_applicable_reason);
  if (memory.applicable) json.field_us("origin_us", memory.origin_ns);
  json.key("devices");
  json.begin_array();
  for (const DeviceMemory& device : memory.devices) write_device(json, trace, device);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
