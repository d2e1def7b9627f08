#include "render/json/gpu_temporal_json.h"

namespace stepscope::render {

namespace {

void write_optional_share(JsonWriter& json, std::string_view name, std::optional<double> share) {
  json.key(name);
  if (share) {
    json.value(*share);
  } else {
    json.null();
  }
}

void write_steps(JsonWriter& json, const std::vector<StepOverlap>& steps) {
  json.begin_array();
  for (const StepOverlap& step : steps) {
    json.begin_object();
    json.field("number", step.step_number);
    json.field_us("communication_us", step.communication_ns);
    json.field_us("exposed_communication_us", step.exposed_communication_ns);
    write_optional_share(json, "overlap_share", step.overlap_share);
    json.end_object();
  }
  json.end_array();
}

void write_device(JsonWriter& json, const DeviceTemporal& d) {
  json.begin_object();
  json.field("device", d.device);
  json.field_us("window_us", d.window_ns);
  json.field_us("busy_us", d.busy_ns);
  json.field_us("idle_us", d.idle_ns);
  json.field_us("compute_us", d.compute_ns);
  json.field_us("non_compute_us", d.non_compute_ns);
  json.field_us("communication_us", d.communication_ns);
  json.field_us("communication_only_us", d.communication_only_ns);
  json.field_us("memory_us", d.memory_ns);
  json.field_us("memory_only_us", d.memory_only_ns);
  json.field("idle_share", d.share(d.idle_ns));
  json.field("compute_share", d.share(d.compute_ns));
  json.field("non_compute_share", d.share(d.non_compute_ns));
  json.field_us("comp_comm_overlap_us", d.overlap_ns);
  write_optional_share(json, "comp_comm_overlap_share", d.overlap_share);
  json.field_us("timeline_span_us", d.timeline_span_ns);
  json.field_us("timeline_idle_us", d.timeline_idle_ns);
  json.field("activities", d.activities);
  json.field("outside_window_activities", d.outside_window_activities);
  json.field_us("outside_window_us", d.outside_window_ns);
  json.key("steps");
  write_steps(json, d.steps);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const GpuTemporalResult& temporal) {
  json.begin_object();
  json.field("applicable", temporal.applicable);
  if (!temporal.applicable) json.field("not_applicable_reason", temporal.not_applicable_reason);
  json.key("devices");
  json.begin_array();
  for (const DeviceTemporal& device : temporal.devices) write_device(json, device);
  json.end_array();
  json.key("steps");
  write_steps(json, temporal.steps);
  json.end_object();
}

}  // namespace stepscope::render
