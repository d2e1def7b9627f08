#include "render/json/phases_json.h"

#include <string>

namespace stepscope::render {

namespace {

void write_times(JsonWriter& json, const PhaseTimes& times) {
  json.begin_object();
  json.field_us("step_us", times.step_ns);
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    const std::string name(to_string(static_cast<Phase>(p)));
    json.key(name);
    json.begin_object();
    json.field_us("host_us", times.host_ns[p]);
    json.field("host_share", times.step_ns > 0 ? static_cast<double>(times.host_ns[p]) /
                                                     static_cast<double>(times.step_ns)
                                               : 0.0);
    json.field_us("device_us", times.device_ns[p]);
    json.end_object();
  }
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const PhasesResult& phases) {
  json.begin_object();
  json.field("mode", to_string(phases.mode));
  json.field("applicable", phases.applicable);
  if (!phases.applicable) json.field("reason", phases.not_applicable_reason);
  json.field("kept_steps", static_cast<std::uint64_t>(phases.steps.size()));
  json.key("markers");
  json.begin_object();
  for (std::size_t p = 0; p + 1 < kPhaseCount; ++p) {
    json.field(to_string(static_cast<Phase>(p)), phases.markers[p]);
  }
  json.end_object();
  json.key("mean_per_step");
  if (phases.applicable) {
    write_times(json, phases.mean);
  } else {
    json.null();
  }
  json.key("steps");
  json.begin_array();
  for (const StepPhases& step : phases.steps) {
    json.begin_object();
    json.field("number", step.step_number);
    json.field("forward_inferred", step.forward_inferred);
    json.key("phases");
    write_times(json, step.times);
    json.end_object();
  }
  json.end_array();
  json.key("labels");
  json.begin_array();
  for (const LabelledTime& label : phases.labels) {
    json.begin_object();
    json.field("name", label.name);
    json.field("markers", label.markers);
    json.field_us("mean_host_us_per_step", label.mean_host_ns);
    json.end_object();
  }
  json.end_array();
  json.key("notes");
  json.begin_array();
  for (const std::string& note : phases.notes) json.value(note);
  json.end_array();
  json.key("quirks");  // no peer defines phases: nothing to reproduce
  json.begin_array();
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
