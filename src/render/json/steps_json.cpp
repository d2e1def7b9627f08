#include "render/json/steps_json.h"

#include <cmath>

namespace stepscope::render {

namespace {

std::string_view window_source_name(StepsResult::WindowSource source) {
  switch (source) {
    case StepsResult::WindowSource::kSteps:
      return "kept_steps";
    case StepsResult::WindowSource::kGpuActivitySpan:
      return "gpu_activity_span";
    case StepsResult::WindowSource::kNone:
      return "none";
  }
  return "none";
}

void write_us(JsonWriter& json, std::string_view name, double ns) {
  json.key(name);
  json.value(std::round(ns) / 1000.0);
}

}  // namespace

void write_duration_statistics(JsonWriter& json, const Statistics& stats) {
  json.begin_object();
  json.field("count", static_cast<std::uint64_t>(stats.count));
  if (stats.count > 0) {
    write_us(json, "mean_us", stats.mean);
    write_us(json, "std_us", stats.std);
    write_us(json, "min_us", stats.min);
    write_us(json, "p50_us", stats.p50);
    write_us(json, "p95_us", stats.p95);
    write_us(json, "p99_us", stats.p99);
    write_us(json, "max_us", stats.max);
    json.field("cv", stats.cv);
  }
  json.field("few_samples", stats.few_samples);
  json.end_object();
}

void write_json(JsonWriter& json, const StepsResult& steps) {
  json.begin_object();
  json.field("rebased_on_device", steps.rebased);
  json.field("count", static_cast<std::uint64_t>(steps.steps.size()));
  json.field("kept", static_cast<std::uint64_t>(steps.kept().size()));
  json.key("window");
  if (steps.window) {
    json.begin_object();
    json.field_us("start_us", steps.window->start);
    json.field_us("end_us", steps.window->end);
    json.field_us("duration_us", steps.window->length());
    json.field("source", window_source_name(steps.window_source));
    json.end_object();
  } else {
    json.null();
  }
  json.key("steps");
  json.begin_array();
  for (const Step& step : steps.steps) {
    json.begin_object();
    json.field("number", step.number);
    json.field("status", to_string(step.status));
    json.field_us("host_start_us", step.host_start_ns);
    json.field_us("host_end_us", step.host_end_ns);
    json.field_us("start_us", step.start_ns);
    json.field_us("end_us", step.end_ns);
    json.field_us("duration_us", step.duration_ns());
    json.field_us("host_duration_us", step.host_duration_ns());
    json.field("device_activities", step.device_activities);
    json.field("outlier", step.outlier);
    json.end_object();
  }
  json.end_array();
  json.key("notes");
  json.begin_array();
  for (const std::string& note : steps.notes) json.value(note);
  json.end_array();
  json.end_object();
}

void write_json(JsonWriter& json, const StepTimeStats& stats) {
  json.begin_object();
  json.key("duration");
  write_duration_statistics(json, stats.duration_ns);
  json.key("host_duration");
  write_duration_statistics(json, stats.host_duration_ns);
  json.end_object();
}

}  // namespace stepscope::render
