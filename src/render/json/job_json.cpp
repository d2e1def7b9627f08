// The document of `stepscope merge --json`: the `job` object (figures/job_fields.h) in its own
// envelope.
#include "render/json/json_sink.h"
#include "stepscope/figures/job_fields.h"
#include "stepscope/job/job_report.h"
#include "stepscope/report.h"

namespace stepscope::job {

std::string render_job_json(const JobAnalysis& job) {
  render::JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.job");
  json.field("schema_version", kJsonSchemaVersion);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  json.key("job");
  render::write_json(json, job);
  json.end_object();
  std::string text = json.take();
  text.push_back('\n');
  return text;
}

}  // namespace stepscope::job
