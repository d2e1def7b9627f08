// The JSON document of `stepscope memory` (schema in docs/json-schema.md).
#include "render/json_writer.h"
#include "stepscope/snapshot_report.h"

namespace stepscope {

namespace {

using render::JsonWriter;

void write_optional(JsonWriter& json, std::string_view key, std::int64_t value) {
  json.key(key);
  if (value == kAbsent) {
    json.null();
  } else {
    json.value(value);
  }
}

void write_optional(JsonWriter& json, std::string_view key, std::optional<double> value) {
  json.key(key);
  if (value) {
    json.value(*value);
  } else {
    json.null();
  }
}

void write_stack(JsonWriter& json, const MemorySnapshot& s, StackId stack, int depth) {
  json.begin_array();
  int written = 0;
  for (std::uint32_t frame : s.stack(stack)) {
    if (written++ == depth) break;
    const SnapshotFrame& f = s.frames[frame];
    json.begin_object();
    json.field("name", s.strings.view(f.name));
    json.field("filename", s.strings.view(f.filename));
    json.field("line", f.line);
    json.end_object();
  }
  json.end_array();
}

constexpr int kStackDepth = 16;

void write_sites(JsonWriter& json, const MemorySnapshot& s, const std::vector<SiteBytes>& rows) {
  json.begin_array();
  for (const SiteBytes& row : rows) {
    json.begin_object();
    json.field("site", describe_frame(s, row.site));
    json.field("bytes", row.bytes);
    json.field("allocations", row.count);
    json.key("example_stack");
    write_stack(json, s, row.example_stack, kStackDepth);
    json.end_object();
  }
  json.end_array();
}

void write_state(JsonWriter& json, const MemorySnapshot& s, const SnapshotDevice& d) {
  json.begin_object();
  json.field("segments", d.segments);
  json.field("large_segments", d.large_segments);
  json.field("expandable_segments", d.expandable_segments);
  json.field("reserved_bytes", d.reserved_bytes);
  json.field("allocated_bytes", d.allocated_bytes);
  json.field("active_bytes", d.active_bytes);
  write_optional(json, "requested_bytes", d.requested_bytes);
  json.field("blocks", d.blocks);
  json.key("blocks_by_state");
  json.begin_object();
  for (BlockState state : {BlockState::kActiveAllocated, BlockState::kActivePendingFree,
                           BlockState::kInactive, BlockState::kOther}) {
    json.field(to_string(state), d.blocks_by_state[static_cast<std::size_t>(state)]);
  }
  json.end_object();
  json.field("inactive_bytes", d.inactive_bytes);
  json.field("largest_inactive_block_bytes", d.largest_inactive_block);
  write_optional(json, "fragmentation", d.fragmentation);
  write_optional(json, "inactive_fragmentation", d.inactive_fragmentation);
  json.key("largest_live_blocks");
  json.begin_array();
  for (const LiveBlockRow& row : d.largest_live_blocks) {
    json.begin_object();
    json.field("address", row.address);
    json.field("bytes", row.size);
    write_optional(json, "requested_bytes", row.requested_size);
    json.field("site", describe_frame(s, row.site));
    json.key("stack");
    write_stack(json, s, row.stack, kStackDepth);
    json.end_object();
  }
  json.end_array();
  json.key("live_by_site");
  write_sites(json, s, d.live_by_site);
  json.key("fragmentation_cost");
  if (d.fragmentation_cost) {
    const FragmentationCost& f = *d.fragmentation_cost;
    json.begin_object();
    json.field("unused_bytes", f.unused_bytes);
    json.field("segments_with_unused", f.segments_with_unused);
    json.field("largest_free_block_bytes", f.largest_free_block);
    json.field("returnable_bytes", f.returnable_bytes);
    json.field("returnable_share", f.returnable_share);
    json.field("fix", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
    json.end_object();
  } else {
    json.null();
  }
  json.end_object();
}

void write_trace(JsonWriter& json, const MemorySnapshot& s, const SnapshotDevice& d) {
  json.begin_object();
  json.field("entries", d.entries);
  json.key("entries_by_action");
  json.begin_object();
  for (std::size_t a = 0; a < d.entries_by_action.size(); ++a) {
    if (d.entries_by_action[a] > 0) {
      json.field(to_string(static_cast<SnapshotAction>(a)), d.entries_by_action[a]);
    }
  }
  json.end_object();
  write_optional(json, "first_time_us", d.first_time_us);
  write_optional(json, "last_time_us", d.last_time_us);
  json.field("free_action", d.frees_from_completed ? "free_completed" : "free_requested");
  json.field("allocated_before_trace_bytes", d.allocated_before_trace);
  json.field("peak_allocated_bytes", d.peak_bytes);
  json.field("peak_entry", d.peak_entry);
  write_optional(json, "peak_time_us", d.peak_time_us);
  json.key("live_at_peak_by_site");
  write_sites(json, s, d.peak_by_site);
  json.field("never_freed", d.never_freed);
  json.field("never_freed_bytes", d.never_freed_bytes);
  json.key("never_freed_by_site");
  write_sites(json, s, d.never_freed_by_site);
  json.field("ooms", d.ooms);
  write_optional(json, "last_oom_device_free_bytes", d.last_oom_device_free);
  json.key("last_oom");
  if (d.last_oom) {
    const OomReport& oom = *d.last_oom;
    json.begin_object();
    json.field("requested_bytes", oom.requested_bytes);
    write_optional(json, "device_free_bytes", oom.device_free);
    write_optional(json, "time_us", oom.time_us);
    json.key("stack");
    write_stack(json, s, oom.stack, kStackDepth);
    json.field("live_bytes", oom.live_bytes);
    json.key("live_by_site");
    write_sites(json, s, oom.live_by_site);
    json.end_object();
  } else {
    json.null();
  }
  json.end_object();
}

}  // namespace

std::string render_snapshot_json(const SnapshotReport& report, int /*top*/) {
  const MemorySnapshot& s = *report.snapshot;
  JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.memory_snapshot");
  json.field("schema_version", 1);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  json.field("file", s.source_path);
  json.field("input_bytes", s.input_bytes);
  json.field("unique_frames", static_cast<std::uint64_t>(s.frames.size()));
  json.field("unique_stacks", static_cast<std::uint64_t>(s.stack_offsets.size() - 1));
  json.field("device_traces", static_cast<std::int64_t>(s.device_trace_count));
  json.key("timing");
  json.begin_object();
  json.field("load_seconds", report.load_seconds);
  json.field("analysis_seconds", report.analysis_seconds);
  json.end_object();
  json.key("devices");
  json.begin_array();
  for (const SnapshotDevice& d : report.devices) {
    json.begin_object();
    json.field("device", static_cast<std::int64_t>(d.device));
    json.key("state");
    write_state(json, s, d);
    json.key("trace");
    write_trace(json, s, d);
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.take() + "\n";
}

}  // namespace stepscope
