// The memory planner for Python: stepscope.torch.memory_plan measures, these write the
// measurement document and plan from it, so that Python and `stepscope plan` read the same
// document through the same reader and print the same table. Failures come back as
// (False, message, ...) so that Python raises ValueError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "stepscope/memory/plan.h"
#include "stepscope/memory/plan_document.h"

namespace nb = nanobind;

namespace {

using Timing = std::tuple<double, double, double, double>;  // forward, backward, optimizer, blocks
// (ok, error, text, json)
using Answer = std::tuple<bool, std::string, std::string, std::string>;

stepscope::memory::StepTiming timing_of(const Timing& t) {
  return {.forward_ms = std::get<0>(t),
          .backward_ms = std::get<1>(t),
          .optimizer_ms = std::get<2>(t),
          .blocks_forward_ms = std::get<3>(t)};
}

}  // namespace

void bind_memory_plan(nb::module_& m) {
  m.def(
      "plan_measurement_document",
      [](std::int64_t parameter_count, std::int64_t parameter_bytes, std::int64_t gradient_bytes,
         std::int64_t optimizer_state_bytes, const std::string& optimizer,
         const std::string& device, std::int64_t batch_a, std::int64_t peak_a, std::int64_t batch_b,
         std::int64_t peak_b, std::int64_t optimizer_peak, std::int64_t capacity_bytes,
         std::int64_t repeated_blocks, const Timing& timing_a, const Timing& timing_b,
         const std::vector<std::string>& notes) {
        stepscope::memory::PlanMeasurement in;
        in.parameter_count = parameter_count;
        in.parameter_bytes = parameter_bytes;
        in.gradient_bytes = gradient_bytes;
        in.optimizer_state_bytes = optimizer_state_bytes;
        in.optimizer = optimizer;
        in.device = device;
        in.batch_a = batch_a;
        in.peak_a = peak_a;
        in.batch_b = batch_b;
        in.peak_b = peak_b;
        in.optimizer_peak = optimizer_peak;
        in.capacity_bytes = capacity_bytes;
        in.repeated_blocks = repeated_blocks;
        in.timing_a = timing_of(timing_a);
        in.timing_b = timing_of(timing_b);
        in.notes = notes;
        return stepscope::memory::render_plan_measurement_json(in);
      },
      nb::arg("parameter_count"), nb::arg("parameter_bytes"), nb::arg("gradient_bytes"),
      nb::arg("optimizer_state_bytes"), nb::arg("optimizer"), nb::arg("device"), nb::arg("batch_a"),
      nb::arg("peak_a"), nb::arg("batch_b"), nb::arg("peak_b"), nb::arg("optimizer_peak"),
      nb::arg("capacity_bytes"), nb::arg("repeated_blocks"), nb::arg("timing_a"),
      nb::arg("timing_b"), nb::arg("notes"),
      "The measurement as its JSON document (schema stepscope.plan_measurement); each timing "
      "is (forward, backward, optimizer, blocks' forward) in ms.");
  m.def(
      "memory_plan_document",
      [](const std::string& document, const std::string& file, int shards, double safety_margin,
         std::int64_t effective_batch, double link_gbps) -> Answer {
        auto measured = stepscope::memory::parse_plan_measurement(document, file);
        if (!measured) return {false, measured.error().describe(), "", ""};
        measured->shards = shards;
        measured->safety_margin = safety_margin;
        measured->effective_batch = effective_batch;
        measured->link_gbps = link_gbps;
        const auto plan = stepscope::memory::plan_memory(*measured);
        if (!plan) return {false, plan.error().message, "", ""};
        return {true, "", stepscope::memory::render_plan_text(*plan),
                stepscope::memory::render_plan_json(*plan)};
      },
      nb::arg("document"), nb::arg("file"), nb::arg("shards"), nb::arg("safety_margin"),
      nb::arg("effective_batch"), nb::arg("link_gbps"),
      "Plan from a measurement document: (ok, error, terminal table, plan JSON), every figure "
      "estimated.");
  m.attr("default_link_gbps") = stepscope::memory::kDefaultLinkGBps;
}
