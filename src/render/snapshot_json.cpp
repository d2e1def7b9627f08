// The JSON document of `stepscope memory` (schema in docs/json-schema.md): the schema header,
// then the figures of figures/snapshot_fields.h.
#include "render/json/json_sink.h"
#include "stepscope/figures/snapshot_fields.h"
#include "stepscope/snapshot_report.h"

namespace stepscope {

std::string render_snapshot_json(const SnapshotReport& report, int /*top*/) {
  render::JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.memory_snapshot");
  json.field("schema_version", 1);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  render::JsonSink sink(json);
  figures::Context context;
  context.snapshot = report.snapshot;
  figures::write_members(sink, figures::SnapshotDocument{report}, context);
  json.end_object();
  return json.take() + "\n";
}

}  // namespace stepscope
