// The memory planner's arithmetic (stepscope/memory/plan.h).
#include "stepscope/memory/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "render/text_format.h"
#include "trace/saturating.h"

namespace stepscope::memory {

namespace {

// bf16 halves what autograd saves for backward; the fp32 weights stay, and autocast keeps a
// bf16 copy of each weight it casts for the forward pass.
constexpr double kAutocastActivationFactor = 0.5;

std::int64_t scaled(std::int64_t bytes, double factor) {
  return static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * factor));
}

std::int64_t largest_batch(const PlanRow& r, std::int64_t capacity, double margin) {
  const double budget = static_cast<double>(capacity) * (1.0 - margin);
  if (static_cast<double>(r.optimizer_peak_bytes) > budget) return 0;
  const double left = budget - static_cast<double>(r.fixed_bytes);
  if (left < static_cast<double>(std::max<std::int64_t>(r.per_sample_bytes, 1))) return 0;
  if (r.per_sample_bytes <= 0) return -1;  // activations did not grow with the batch
  return static_cast<std::int64_t>(std::floor(left / static_cast<double>(r.per_sample_bytes)));
}

// A setting: forward/backward (fixed, per sample) and the optimizer step's peak.
struct Setting {
  std::int64_t fixed = 0;
  std::int64_t per_sample = 0;
  std::int64_t optimizer_peak = 0;
};

PlanRow row(const MemoryPlan& plan, std::string technique, std::string assumption,
            Setting setting) {
  const PlanMeasurement& m = plan.measured;
  PlanRow r;
  r.technique = std::move(technique);
  r.assumption = std::move(assumption);
  r.fixed_bytes = setting.fixed;
  r.per_sample_bytes = setting.per_sample;
  r.optimizer_peak_bytes = setting.optimizer_peak;
  r.predicted_peak_bytes = predicted_peak(r, m.batch_b);
  r.largest_batch = largest_batch(r, m.capacity_bytes, m.safety_margin);
  return r;
}

const OptimizerChoice* choice_named(std::string_view name) {
  for (const OptimizerChoice& choice : optimizer_choices()) {
    if (choice.name == name) return &choice;
  }
  return nullptr;
}

// Each other optimizer in place of the measured one: in forward and backward its state replaces
// the measured state; in the optimizer step its state and temporaries (from the table) replace
// the measured state and temporaries.
void add_optimizer_rows(MemoryPlan& plan, const Setting& current) {
  const PlanMeasurement& m = plan.measured;
  const OptimizerChoice* measured = choice_named(m.optimizer);
  for (const OptimizerChoice& choice : optimizer_choices()) {
    if (measured == &choice) continue;
    const std::int64_t state = scaled(m.parameter_count, choice.state_bytes_per_parameter);
    const std::int64_t temporary =
        scaled(m.parameter_count, choice.step_temporary_bytes_per_parameter);
    plan.rows.push_back(
        row(plan, "optimizer " + choice.name,
            fmt::format("{:.1f} bytes of state and {:.1f} of step temporaries per parameter in "
                        "place of the measured {} and {}",
                        choice.state_bytes_per_parameter, choice.step_temporary_bytes_per_parameter,
                        render::format_bytes(m.optimizer_state_bytes),
                        render::format_bytes(plan.optimizer_temporary_bytes)),
            {current.fixed - m.optimizer_state_bytes + state, current.per_sample,
             current.optimizer_peak - m.optimizer_state_bytes - plan.optimizer_temporary_bytes +
                 state + temporary}));
  }
}

void add_sharding_rows(MemoryPlan& plan, const Setting& current) {
  const PlanMeasurement& m = plan.measured;
  if (m.shards <= 1) return;
  const double kept_away = 1.0 - 1.0 / m.shards;
  auto sharded = [&](std::int64_t bytes) {
    const std::int64_t saved = scaled(bytes, kept_away);
    return Setting{current.fixed - saved, current.per_sample, current.optimizer_peak - saved};
  };
  const std::int64_t state = m.optimizer_state_bytes;
  const std::int64_t grads = m.gradient_bytes;
  const std::int64_t params = m.parameter_bytes;
  plan.rows.push_back(row(plan, fmt::format("ZeRO-1 over {} GPUs", m.shards),
                          "optimizer state split over the GPUs", sharded(state)));
  plan.rows.push_back(row(plan, fmt::format("ZeRO-2 over {} GPUs", m.shards),
                          "optimizer state and gradients split over the GPUs",
                          sharded(state + grads)));
  plan.rows.push_back(row(plan, fmt::format("ZeRO-3 / FSDP over {} GPUs", m.shards),
                          "parameters, gradients and optimizer state split over the GPUs (the "
                          "layer being gathered is not counted)",
                          sharded(state + grads + params)));
}

}  // namespace

const std::vector<OptimizerChoice>& optimizer_choices() {
  static const std::vector<OptimizerChoice> kChoices = {
      {"AdamW", 8.0, 4.0}, {"Adam 8-bit", 2.0, 4.0}, {"SGD momentum", 4.0, 0.0},
      {"SGD", 0.0, 0.0},   {"Adafactor", 0.1, 4.0},
  };
  return kChoices;
}

std::int64_t predicted_peak(const PlanRow& row, std::int64_t batch) {
  return std::max(saturating_add(row.fixed_bytes, saturating_mul(row.per_sample_bytes, batch)),
                  row.optimizer_peak_bytes);
}

Result<MemoryPlan> plan_memory(const PlanMeasurement& measured) {
  const PlanMeasurement& m = measured;
  if (m.batch_a <= 0 || m.batch_b <= m.batch_a) {
    return make_error(ErrorKind::kBadOption,
                      fmt::format("the two measured batch sizes must grow (got {} then {})",
                                  m.batch_a, m.batch_b));
  }
  if (m.parameter_bytes < 0 || m.gradient_bytes < 0 || m.optimizer_state_bytes < 0 ||
      m.peak_a <= 0 || m.peak_b <= 0 || m.capacity_bytes <= 0 || m.parameter_count < 0 ||
      m.optimizer_peak < 0) {
    return make_error(ErrorKind::kBadOption,
                      "the measured bytes, peaks and capacity must be positive");
  }
  if (!(m.safety_margin >= 0 && m.safety_margin < 1) || m.shards < 1) {
    return make_error(ErrorKind::kBadOption, "the safety margin must be in [0, 1), shards >= 1");
  }
  MemoryPlan plan;
  plan.measured = m;
  // A peak that fell with the batch is noise around zero activation growth.
  plan.per_sample_bytes =
      std::max<std::int64_t>(0, (m.peak_b - m.peak_a) / (m.batch_b - m.batch_a));
  plan.fixed_bytes = m.peak_a - plan.per_sample_bytes * m.batch_a;
  plan.other_fixed_bytes = plan.fixed_bytes - m.parameter_bytes - m.optimizer_state_bytes;
  const OptimizerChoice* in_use = choice_named(m.optimizer);
  const std::int64_t held = m.parameter_bytes + m.gradient_bytes + m.optimizer_state_bytes;
  plan.optimizer_temporary_bytes =
      m.optimizer_peak > 0 ? std::max<std::int64_t>(0, m.optimizer_peak - held)
      : in_use != nullptr  ? scaled(m.parameter_count, in_use->step_temporary_bytes_per_parameter)
                           : 0;
  const Setting current{
      plan.fixed_bytes, plan.per_sample_bytes,
      m.optimizer_peak > 0 ? m.optimizer_peak : held + plan.optimizer_temporary_bytes};
  const std::int64_t p = m.parameter_bytes;
  const std::int64_t half_activations = scaled(current.per_sample, kAutocastActivationFactor);
  plan.rows.push_back(
      row(plan, "current (" + (m.optimizer.empty() ? "measured" : m.optimizer) + ")",
          m.optimizer_peak > 0 ? "measured: forward/backward at two batch sizes, the optimizer step"
                               : "measured at two batch sizes; the optimizer step from the table",
          current));
  plan.rows.push_back(row(plan, "bf16 autocast",
                          "activations halve; a bf16 copy of the weights is cached for the "
                          "forward pass",
                          {current.fixed + p / 2, half_activations, current.optimizer_peak}));
  plan.rows.push_back(row(plan, "bf16 weights + fp32 master copy",
                          "bf16 weights and gradients, fp32 master weights, activations halve",
                          {current.fixed + p / 2, half_activations,
                           current.optimizer_peak + p / 2 - m.gradient_bytes / 2}));
  // With two blocks, keeping the inputs of both and recomputing one saves nothing in this model.
  if (m.repeated_blocks >= 3) {
    const auto n = static_cast<double>(m.repeated_blocks);
    plan.rows.push_back(
        row(plan, fmt::format("checkpoint every block ({})", m.repeated_blocks),
            "rough: one block's activations recomputed in backward plus the "
            "saved block inputs, counted as one more block",
            {current.fixed, scaled(current.per_sample, 2.0 / n), current.optimizer_peak}));
    if (m.repeated_blocks >= 4) {
      plan.rows.push_back(row(
          plan, "checkpoint every second block", "rough: half the blocks keep their activations",
          {current.fixed, scaled(current.per_sample, 0.5 + 1.0 / n), current.optimizer_peak}));
    }
  }
  add_optimizer_rows(plan, current);
  add_sharding_rows(plan, current);
  if (m.repeated_blocks >= 3) {
    const auto n = static_cast<double>(m.repeated_blocks);
    plan.rows.push_back(
        row(plan, "bf16 autocast + checkpoint every block", "both of the rows above",
            {current.fixed + p / 2, scaled(current.per_sample, kAutocastActivationFactor * 2.0 / n),
             current.optimizer_peak}));
  }
  return plan;
}

std::string render_plan_text(const MemoryPlan& plan) {
  const PlanMeasurement& m = plan.measured;
  std::string out = fmt::format(
      "Memory plan (every figure estimated: forward/backward linear in the batch size, the "
      "optimizer step's peak without it)\n"
      "  measured: parameters {} ({} values), gradients {}, optimizer state {}; forward/backward "
      "peak {} at batch {}, {} at batch {}; optimizer step peak {}\n"
      "  model: {} fixed ({} beyond parameters and state) + {} per sample; optimizer "
      "temporaries {}; capacity {} with {} kept free\n",
      render::format_bytes(m.parameter_bytes),
      render::format_count(
          static_cast<std::uint64_t>(std::max<std::int64_t>(m.parameter_count, 0))),
      render::format_bytes(m.gradient_bytes), render::format_bytes(m.optimizer_state_bytes),
      render::format_bytes(m.peak_a), m.batch_a, render::format_bytes(m.peak_b), m.batch_b,
      m.optimizer_peak > 0 ? render::format_bytes(m.optimizer_peak) : std::string("not measured"),
      render::format_bytes(plan.fixed_bytes), render::format_bytes(plan.other_fixed_bytes),
      render::format_bytes(plan.per_sample_bytes),
      render::format_bytes(plan.optimizer_temporary_bytes), render::format_bytes(m.capacity_bytes),
      render::format_percent(m.safety_margin));
  render::TextTable table;
  table.add_column("technique (estimated)", true);
  table.add_column(fmt::format("peak at batch {}", m.batch_b));
  table.add_column("per sample");
  table.add_column("optimizer step");
  table.add_column("largest batch");
  table.add_column("assumption", true);
  for (const PlanRow& r : plan.rows) {
    table.add_row({render::printable(r.technique, 50), render::format_bytes(r.predicted_peak_bytes),
                   render::format_bytes(r.per_sample_bytes),
                   render::format_bytes(r.optimizer_peak_bytes),
                   r.largest_batch < 0 ? std::string("unbounded") : std::to_string(r.largest_batch),
                   render::printable(r.assumption, 120)});
  }
  return out + table.render("  ");
}

}  // namespace stepscope::memory
