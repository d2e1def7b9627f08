// The JSON document of `stepscope diff` (schema in docs/json-schema.md, "stepscope diff"): the
// schema header, then the figures of figures/diff_fields.h.
#include "render/json/json_sink.h"
#include "stepscope/diff.h"
#include "stepscope/figures/diff_fields.h"

namespace stepscope {

std::string render_diff_json(const DiffResult& r) {
  render::JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.diff");
  json.field("schema_version", kDiffJsonSchemaVersion);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  render::JsonSink sink(json);
  figures::write_members(sink, r, figures::Context{});
  json.end_object();
  std::string out = json.take();
  out += '\n';
  return out;
}

}  // namespace stepscope
