#include "render/json/operators_json.h"

namespace stepscope::render {

void write_json(JsonWriter& json, const OperatorTable& table) {
  json.begin_object();
  json.field("applicable", table.applicable);
  if (!table.applicable) json.field("not_applicable_reason", table.not_applicable_reason);
  json.field("grouped_by_input_shape", table.grouped_by_input_shape);
  json.field_us("self_cpu_total_us", table.self_cpu_total_ns);
  json.field_us("attributed_device_us", table.attributed_device_ns);
  json.field_us("unattributed_device_us", table.unattributed_device_ns);
  json.field("unattributed_activities", table.unattributed_activities);
  json.field("attributed_device_share", table.attributed_device_share);
  json.field("merged_single_children", table.merged_single_children);
  json.key("rows");
  json.begin_array();
  for (const OperatorRow& row : table.rows) {
    json.begin_object();
    json.field("name", row.name);
    if (table.grouped_by_input_shape) {
      json.field("input_dims", row.input_dims);
      json.field("input_types", row.input_types);
    }
    json.field("class", to_string(row.event_class));
    json.field("calls", row.calls);
    json.field_us("self_cpu_us", row.self_cpu_ns);
    json.field_us("total_cpu_us", row.total_cpu_ns);
    json.field_us("self_device_us", row.self_device_ns);
    json.field_us("total_device_us", row.total_device_ns);
    json.field("device_activities", row.device_activities);
    json.field("self_cpu_share", row.self_cpu_share);
    json.field("self_device_share", row.self_device_share);
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
