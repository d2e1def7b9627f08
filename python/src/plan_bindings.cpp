// The memory planner's arithmetic for Python (stepscope.torch.memory_plan measures, this
// predicts). Failures come back as (False, message, ...) so that Python raises ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "stepscope/memory/plan.h"

namespace nb = nanobind;

namespace {

using Row = std::tuple<std::string, std::string, std::int64_t, std::int64_t, std::int64_t,
                       std::int64_t, std::int64_t>;
using Answer =
    std::tuple<bool, std::string, std::string, std::vector<Row>, std::int64_t, std::int64_t>;

}  // namespace

void bind_memory_plan(nb::module_& m) {
  m.def(
      "memory_plan",
      [](std::int64_t parameter_count, std::int64_t parameter_bytes, std::int64_t gradient_bytes,
         std::int64_t optimizer_state_bytes, const std::string& optimizer, std::int64_t batch_a,
         std::int64_t peak_a, std::int64_t batch_b, std::int64_t peak_b,
         std::int64_t optimizer_peak, std::int64_t capacity_bytes, std::int64_t repeated_blocks,
         int shards, double safety_margin) -> Answer {
        stepscope::memory::PlanMeasurement in;
        in.parameter_count = parameter_count;
        in.parameter_bytes = parameter_bytes;
        in.gradient_bytes = gradient_bytes;
        in.optimizer_state_bytes = optimizer_state_bytes;
        in.optimizer = optimizer;
        in.batch_a = batch_a;
        in.peak_a = peak_a;
        in.batch_b = batch_b;
        in.peak_b = peak_b;
        in.optimizer_peak = optimizer_peak;
        in.capacity_bytes = capacity_bytes;
        in.repeated_blocks = repeated_blocks;
        in.shards = shards;
        in.safety_margin = safety_margin;
        const auto plan = stepscope::memory::plan_memory(in);
        if (!plan) return {false, plan.error().message, "", {}, 0, 0};
        std::vector<Row> rows;
        for (const stepscope::memory::PlanRow& r : plan->rows) {
          rows.emplace_back(r.technique, r.assumption, r.fixed_bytes, r.per_sample_bytes,
                            r.optimizer_peak_bytes, r.predicted_peak_bytes, r.largest_batch);
        }
        return {true,
                "",
                stepscope::memory::render_plan_text(*plan),
                std::move(rows),
                plan->fixed_bytes,
                plan->per_sample_bytes};
      },
      nb::arg("parameter_count"), nb::arg("parameter_bytes"), nb::arg("gradient_bytes"),
      nb::arg("optimizer_state_bytes"), nb::arg("optimizer"), nb::arg("batch_a"), nb::arg("peak_a"),
      nb::arg("batch_b"), nb::arg("peak_b"), nb::arg("optimizer_peak"), nb::arg("capacity_bytes"),
      nb::arg("repeated_blocks"), nb::arg("shards"), nb::arg("safety_margin"),
      "The memory plan from measured bytes: (ok, error, text, rows, fixed_bytes, "
      "per_sample_bytes); each row (technique, assumption, fixed, per_sample, optimizer step "
      "peak, peak at batch_b, largest batch), every figure estimated.");
}
