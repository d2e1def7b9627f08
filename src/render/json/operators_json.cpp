#include "render/json/operators_json.h"

namespace stepscope::render {

namespace {

void write_row(JsonWriter& json, const OperatorRow& row, bool by_shape) {
  json.begin_object();
  json.field("name", row.name);
  if (by_shape) {
    json.field("input_dims", row.input_dims);
    json.field("input_types", row.input_types);
  }
  json.field("class",
             row.unattributed ? std::string_view("unattributed") : to_string(row.event_class));
  json.field("calls", row.calls);
  json.field_us("self_cpu_us", row.self_cpu_ns);
  json.field_us("total_cpu_us", row.total_cpu_ns);
  json.field_us("self_device_us", row.self_device_ns);
  json.field_us("total_device_us", row.total_device_ns);
  json.field_us("avg_self_cpu_us", row.avg_self_cpu_ns);
  json.field_us("avg_total_cpu_us", row.avg_total_cpu_ns);
  json.field_us("avg_self_device_us", row.avg_self_device_ns);
  json.field_us("avg_total_device_us", row.avg_total_device_ns);
  json.field("device_activities", row.device_activities);
  json.field("self_cpu_share", row.self_cpu_share);
  json.field("self_device_share", row.self_device_share);
  json.end_object();
}

void write_device_row(JsonWriter& json, const DeviceActivityRow& row) {
  json.begin_object();
  json.field("name", row.name);
  json.field("class", to_string(row.event_class));
  json.field("count", row.count);
  json.field_us("device_us", row.device_ns);
  json.field_us("avg_device_us", row.avg_device_ns);
  json.field_us("min_device_us", row.min_device_ns);
  json.field_us("max_device_us", row.max_device_ns);
  json.field("unattributed_count", row.unattributed_count);
  json.field("device_share", row.device_share);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const OperatorsResult& operators) {
  json.begin_object();
  json.field("applicable", operators.applicable);
  if (!operators.applicable) json.field("not_applicable_reason", operators.not_applicable_reason);
  json.field("grouped_by_input_shape", operators.grouped_by_input_shape);
  json.field("scope", operators.scope ? "ops starting in the step window" : "whole trace");
  if (operators.scope) {
    json.field_us("scope_start_us", operators.scope->start);
    json.field_us("scope_end_us", operators.scope->end);
  }
  json.field("ops_outside_scope", operators.ops_outside_scope);
  json.field_us("self_cpu_total_us", operators.self_cpu_total_ns);
  json.field_us("device_total_us", operators.device_total_ns);
  json.field_us("attributed_device_us", operators.attributed_device_ns);
  json.field_us("unattributed_device_us", operators.unattributed_device_ns);
  json.field("unattributed_activities", operators.unattributed_activities);
  json.field("attributed_device_share", operators.attributed_device_share);
  json.field("attributed_by_external_id", operators.attributed_by_external_id);
  json.field("attributed_through_launch_call", operators.attributed_through_launch_call);
  json.field("merged_single_children", operators.merged_single_children);
  json.key("rows");
  json.begin_array();
  for (const OperatorRow& row : operators.rows) {
    write_row(json, row, operators.grouped_by_input_shape);
  }
  json.end_array();
  json.key("device_rows");
  json.begin_array();
  for (const DeviceActivityRow& row : operators.device_rows) write_device_row(json, row);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
