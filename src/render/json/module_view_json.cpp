#include "render/json/module_view_json.h"

namespace stepscope::render {

namespace {

void write_row(JsonWriter& json, const ModuleRow& row) {
  json.begin_object();
  json.field("path", row.path);
  json.field("name", row.name);
  json.field("depth", row.depth);
  json.field("parent", row.parent);
  json.field("calls", row.calls);
  json.field_us("host_total_us", row.host_total_ns);
  json.field_us("host_self_us", row.host_self_ns);
  json.field_us("device_total_us", row.device_total_ns);
  json.field_us("device_self_us", row.device_self_ns);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const ModuleViewResult& modules) {
  json.begin_object();
  json.field("applicable", modules.applicable);
  if (!modules.applicable) json.field("not_applicable_reason", modules.not_applicable_reason);
  json.field("source", modules.source);
  json.key("scope");
  if (modules.scope) {
    json.begin_object();
    json.field_us("start_us", modules.scope->start);
    json.field_us("end_us", modules.scope->end);
    json.end_object();
  } else {
    json.null();
  }
  json.field("kept_steps", modules.kept_steps);
  json.field("calls_outside_scope", modules.calls_outside_scope);
  json.key("rows");
  json.begin_array();
  for (const ModuleRow& row : modules.rows) write_row(json, row);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
