// The JSON document of `stepscope analyze` (schema in docs/json-schema.md).
#include "render/json/hta_json.h"
#include "render/json/json_sink.h"
#include "render/json_writer.h"
#include "report/report_fields.h"
#include "report/report_model.h"
#include "stepscope/analysis/catalogue.h"
#include "stepscope/figures/job_fields.h"
#include "stepscope/figures/trace_fields.h"

namespace stepscope {

namespace {

using render::JsonWriter;

void write_rank(JsonWriter& json, const RankReport& rank) {
  json.begin_object();
  render::JsonSink sink(json);
  figures::write_members(sink, figures::RankHeader{*rank.analyses.trace, rank.diagnosis},
                         figures::Context{});
  for (const AnalysisDescription& analysis : analysis_catalogue()) {
    // Every named analysis is described (figures/fields.h); unnamed ones are not written.
    if (analysis.name.empty() || analysis.write == nullptr) continue;
    json.key(analysis.name);
    analysis.write(sink, rank.analyses);
  }
  json.end_object();
}

}  // namespace

std::string render_rank_json(const RankReport& rank) {
  JsonWriter json;
  write_rank(json, rank);
  return json.take();
}

std::string render_json(const Report& report) {
  JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.analyze");
  json.field("schema_version", kJsonSchemaVersion);
  json.field("stepscope_version", STEPSCOPE_VERSION);
  json.field("mode", to_string(report.request.analysis.mode));
  json.key("input");
  render::write_json(json, figures::ReportInput{report});
  json.key("timing");
  render::write_json(json, figures::ReportTiming{report});
  json.key("ranks");
  json.begin_array();
  for (const RankReport& rank : report.ranks) write_rank(json, rank);
  for (const RenderedRank& rank : report.rendered) json.raw_value(rank.json);
  json.end_array();
  if (report.job) {
    json.key("job");
    render::write_json(json, *report.job);
  }
  if (report.hta) {
    json.key("hta");
    render::write_json(json, *report.hta);
  }
  json.end_object();
  std::string text = json.take();
  text.push_back('\n');
  return text;
}

std::string render_rule_catalogue_json() {
  JsonWriter json;
  json.begin_array();
  for (const RuleDescription& rule : rule_catalogue()) {
    json.begin_object();
    json.field("id", rule.id);
    json.field("title", rule.title);
    json.field("bottleneck", to_string(rule.bottleneck));
    json.field("threshold", rule.threshold);
    json.end_object();
  }
  json.end_array();
  return json.take() + "\n";
}

}  // namespace stepscope
