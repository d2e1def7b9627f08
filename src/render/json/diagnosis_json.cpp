#include "render/json/diagnosis_json.h"

#include "render/json/module_view_json.h"

namespace stepscope::render {

namespace {

void write_refs(JsonWriter& json, const EventRefs& refs) {
  json.begin_object();
  json.field("name", refs.name);
  json.field("count", refs.count);
  json.field_us("first_start_us", refs.first_start_ns);
  json.field_us("last_end_us", refs.last_end_ns);
  json.key("steps");
  json.begin_array();
  for (std::int64_t step : refs.steps) json.value(step);
  json.end_array();
  json.end_object();
}

void write_gain(JsonWriter& json, const ExpectedGain& gain) {
  json.begin_object();
  json.field_us("bound_us_per_step", gain.bound_ns);
  json.field_us("likely_us_per_step", gain.likely_ns);
  json.field("bound_share_of_step", gain.bound_share);
  json.field("likely_share_of_step", gain.likely_share);
  json.field("method", gain.method);
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const Finding& finding) {
  json.begin_object();
  json.field("id", finding.id);
  json.field("title", finding.title);
  json.field("severity", to_string(finding.severity));
  json.field("bottleneck", to_string(finding.bottleneck));
  json.field("phase", to_string(finding.part));
  json.field("rank", finding.rank);
  json.key("evidence");
  json.begin_array();
  for (const Evidence& evidence : finding.evidence) {
    json.begin_object();
    json.field("label", evidence.label);
    json.field("value", evidence.value);
    json.field("unit", evidence.unit);
    json.key("events");
    json.begin_array();
    for (const EventRefs& refs : evidence.events) write_refs(json, refs);
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.field("fix", finding.fix);
  json.key("expected_gain");
  write_gain(json, finding.gain);
  json.key("code");
  if (finding.code) {
    write_json(json, *finding.code);
  } else {
    json.null();
  }
  json.end_object();
}

void write_json(JsonWriter& json, const Diagnosis& diagnosis) {
  json.begin_object();
  json.field("bottleneck", to_string(diagnosis.bottleneck));
  json.field("phase", to_string(diagnosis.part));
  json.field("summary", diagnosis.summary);
  if (!diagnosis.window.empty()) json.field("window", diagnosis.window);
  if (!diagnosis.limited_by.empty()) json.field("limited_by", diagnosis.limited_by);
  json.key("dominant_operations");
  json.begin_array();
  for (const std::string& name : diagnosis.dominant_operations) json.value(name);
  json.end_array();
  json.key("findings");
  json.begin_array();
  for (const Finding& finding : diagnosis.findings) write_json(json, finding);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
