// The memory planner's saved measurement: what stepscope.torch.memory_plan measured, as a small
// JSON document (schema "stepscope.plan_measurement", docs/memory-plan.md), so that
// `stepscope plan MEASUREMENT.json` can plan again with other options without the model.
//
//   Result<memory::PlanMeasurement> m = memory::read_plan_measurement("plan.json");
//   if (m) { m->shards = 8; auto plan = memory::plan_memory(*m); }
#pragma once

#include <string>
#include <string_view>

#include "stepscope/error.h"
#include "stepscope/memory/plan.h"

namespace stepscope::memory {

inline constexpr int kPlanMeasurementSchemaVersion = 1;

// The measured fields only (the options shards, margin, effective batch and link bandwidth are
// chosen when planning).
std::string render_plan_measurement_json(const PlanMeasurement& measured);

// Strict: every field required, no unknown field, integers where bytes and counts are, times
// finite and >= 0. Errors name `file` and, where known, the byte offset; the options of the
// result keep their defaults.
Result<PlanMeasurement> parse_plan_measurement(std::string_view json, const std::string& file);
Result<PlanMeasurement> read_plan_measurement(const std::string& path);

}  // namespace stepscope::memory
