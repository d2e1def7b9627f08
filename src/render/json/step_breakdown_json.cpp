#include "render/json/step_breakdown_json.h"

#include <string>

namespace stepscope::render {

namespace {

void write_roles(JsonWriter& json, const RoleTimes& times, bool runtime_split) {
  json.begin_object();
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    json.field_us(std::string(to_string(static_cast<StepRole>(r))) + "_us", times.ns[r]);
  }
  if (runtime_split) {
    json.field_us("runtime_sync_us", times.runtime_sync_ns);
    json.field_us("runtime_launch_us", times.runtime_launch_ns);
  }
  json.field_us("step_us", times.total_ns);
  json.key("shares");
  json.begin_object();
  for (std::size_t r = 0; r < kStepRoleCount; ++r) {
    json.field(to_string(static_cast<StepRole>(r)),
               times.total_ns > 0
                   ? static_cast<double>(times.ns[r]) / static_cast<double>(times.total_ns)
                   : 0.0);
  }
  json.end_object();
  json.end_object();
}

}  // namespace

void write_json(JsonWriter& json, const StepBreakdownResult& breakdown) {
  const bool split = breakdown.mode != Mode::kCompatTb;
  json.begin_object();
  json.field("mode", to_string(breakdown.mode));
  json.field("applicable", breakdown.applicable);
  if (!breakdown.applicable) json.field("reason", breakdown.not_applicable_reason);
  json.field("kept_steps", static_cast<std::uint64_t>(breakdown.steps.size()));
  json.key("mean_per_step");
  if (breakdown.applicable) {
    write_roles(json, breakdown.mean, split);
  } else {
    json.null();
  }
  json.key("steps");
  json.begin_array();
  for (const StepBreakdownRow& row : breakdown.steps) {
    json.begin_object();
    json.field("number", row.step_number);
    json.field_us("start_us", row.start_ns);
    json.field_us("end_us", row.end_ns);
    json.key("roles");
    write_roles(json, row.roles, split);
    json.end_object();
  }
  json.end_array();
  json.key("quirks");
  json.begin_array();
  for (const std::string& quirk : breakdown.quirks) json.value(quirk);
  json.end_array();
  json.end_object();
}

}  // namespace stepscope::render
