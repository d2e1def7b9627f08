// The JSON document of `stepscope analyze` (schema in docs/json-schema.md).
#include "render/json/hta_json.h"
#include "render/json/json_sink.h"
#include "render/json/memory_json.h"
#include "render/json_writer.h"
#include "report/report_model.h"
#include "stepscope/analysis/catalogue.h"
#include "stepscope/figures/diagnosis_fields.h"
#include "stepscope/figures/job_fields.h"

namespace stepscope {

namespace {

using render::JsonWriter;

void write_import(JsonWriter& json, const Trace& trace) {
  const ImportStats& s = trace.stats;
  json.begin_object();
  json.field("input_bytes", s.input_bytes);
  json.field("events", s.events_seen);
  json.field("complete_events", s.complete_events);
  json.field("instant_events", s.instant_events);
  json.field("memory_events", s.memory_events);
  json.field("flow_events", s.flow_events);
  json.field("counter_events", s.counter_events);
  json.field("metadata_events", s.metadata_events);
  json.field("async_events_not_analysed", s.async_events);
  json.field("other_phase_events_not_analysed", s.other_phase_events);
  json.field("invalid_complete_events_skipped", s.invalid_complete_events);
  json.field("unmatched_begin_end_skipped", s.unmatched_begin_end);
  json.field("unknown_category_events", s.unknown_category_events);
  json.field("external_id_is_correlation", s.external_id_is_correlation);
  json.field("threads", static_cast<std::uint64_t>(trace.threads.size()));
  json.field("bytes_in_memory", static_cast<std::uint64_t>(trace.bytes()));
  const double events = static_cast<double>(std::max<std::uint64_t>(s.events_seen, 1));
  json.field("bytes_in_memory_per_event", static_cast<double>(trace.bytes()) / events);
  json.end_object();
}

void write_devices(JsonWriter& json, const Trace& trace) {
  json.begin_array();
  for (const DeviceProperties& device : trace.devices) {
    json.begin_object();
    json.field("id", device.id);
    json.field("name", device.name);
    json.field("total_memory_bytes", device.total_global_memory);
    json.field("compute_capability",
               std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor));
    json.field("sm_count", device.num_sms);
    json.end_object();
  }
  json.end_array();
}

// Analyses not yet described by figures/fields.h.
void write_legacy(JsonWriter& json, std::string_view name, const RankAnalyses& a) {
  if (name == "memory") render::write_json(json, *a.trace, a.memory);
}

void write_rank(JsonWriter& json, const RankReport& rank) {
  const Trace& trace = *rank.analyses.trace;
  json.begin_object();
  json.field("rank", trace.rank);
  json.field("rank_source", to_string(trace.rank_source));
  json.field("file", trace.source_path);
  if (trace.distributed.world_size >= 0) json.field("world_size", trace.distributed.world_size);
  json.key("devices");
  write_devices(json, trace);
  json.key("diagnosis");
  render::write_json(json, rank.diagnosis);
  json.key("import");
  write_import(json, trace);
  render::JsonSink sink(json);
  for (const AnalysisDescription& analysis : analysis_catalogue()) {
    if (analysis.name.empty()) continue;
    json.key(analysis.name);
    if (analysis.write != nullptr) {
      analysis.write(sink, rank.analyses);
    } else {
      write_legacy(json, analysis.name, rank.analyses);
    }
  }
  json.end_object();
}

void write_input(JsonWriter& json, const Report& report) {
  json.begin_object();
  json.field("path", report.request.path);
  json.key("files");
  json.begin_array();
  for (const std::string& file : report.input_files) json.value(file);
  json.end_array();
  json.key("skipped");
  json.begin_array();
  for (const SkippedFile& skipped : report.traces.skipped) {
    json.begin_object();
    json.field("file", skipped.path);
    json.field("reason", skipped.reason);
    json.end_object();
  }
  json.end_array();
  json.key("notes");
  json.begin_array();
  for (const std::string& note : report.traces.notes) json.value(note);
  json.end_array();
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
  write_input(json, report);
  json.key("timing");
  json.begin_object();
  json.field("load_seconds", report.load_seconds);
  json.field("analysis_seconds", report.analysis_seconds);
  json.end_object();
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
