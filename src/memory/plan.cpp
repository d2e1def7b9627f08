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

std::int64_t largest_batch(std::int64_t fixed, std::int64_t per_sample, std::int64_t capacity,
                           double margin) {
  const double budget = static_cast<double>(capacity) * (1.0 - margin) - static_cast<double>(fixed);
  if (per_sample <= 0) return -1;  // activations did not grow with the batch: no bound from them
  if (budget < static_cast<double>(per_sample)) return 0;
  return static_cast<std::int64_t>(std::floor(budget / static_cast<double>(per_sample)));
}

PlanRow row(const MemoryPlan& plan, std::string technique, std::string assumption,
            std::int64_t fixed, std::int64_t per_sample) {
  const PlanMeasurement& m = plan.measured;
  PlanRow r;
  r.technique = std::move(technique);
  r.assumption = std::move(assumption);
  r.fixed_bytes = fixed;
  r.per_sample_bytes = per_sample;
  r.predicted_peak_bytes = predicted_peak(r, m.batch_b);
  r.largest_batch = largest_batch(fixed, per_sample, m.capacity_bytes, m.safety_margin);
  return r;
}

const OptimizerChoice* choice_named(std::string_view name) {
  for (const OptimizerChoice& choice : optimizer_choices()) {
    if (choice.name == name) return &choice;
  }
  return nullptr;
}

// Each other optimizer in place of the measured one: its state and step temporaries replace
// the measured state and the measured optimizer's temporaries (from the table; 0 when unknown).
void add_optimizer_rows(MemoryPlan& plan) {
  const PlanMeasurement& m = plan.measured;
  const OptimizerChoice* current = choice_named(m.optimizer);
  const std::int64_t current_temporary =
      current != nullptr ? scaled(m.parameter_count, current->step_temporary_bytes_per_parameter)
                         : 0;
  const std::int64_t without = plan.fixed_bytes - m.optimizer_state_bytes - current_temporary;
  for (const OptimizerChoice& choice : optimizer_choices()) {
    if (current == &choice) continue;
    const std::int64_t added =
        scaled(m.parameter_count,
               choice.state_bytes_per_parameter + choice.step_temporary_bytes_per_parameter);
    plan.rows.push_back(row(
        plan, "optimizer " + choice.name,
        fmt::format("{:.1f} bytes of state and {:.1f} of step temporaries per parameter in place "
                    "of the measured state ({})",
                    choice.state_bytes_per_parameter, choice.step_temporary_bytes_per_parameter,
                    render::format_bytes(m.optimizer_state_bytes)),
        without + added, plan.per_sample_bytes));
  }
}

void add_sharding_rows(MemoryPlan& plan) {
  const PlanMeasurement& m = plan.measured;
  if (m.shards <= 1) return;
  const double kept_away = 1.0 - 1.0 / m.shards;
  const std::int64_t state = m.optimizer_state_bytes;
  const std::int64_t grads = m.gradient_bytes;
  const std::int64_t params = m.parameter_bytes;
  plan.rows.push_back(row(plan, fmt::format("ZeRO-1 over {} GPUs", m.shards),
                          "optimizer state split over the GPUs",
                          plan.fixed_bytes - scaled(state, kept_away), plan.per_sample_bytes));
  plan.rows.push_back(row(plan, fmt::format("ZeRO-2 over {} GPUs", m.shards),
                          "optimizer state and gradients split over the GPUs",
                          plan.fixed_bytes - scaled(state + grads, kept_away),
                          plan.per_sample_bytes));
  plan.rows.push_back(row(plan, fmt::format("ZeRO-3 / FSDP over {} GPUs", m.shards),
                          "parameters, gradients and optimizer state split over the GPUs (the "
                          "layer being gathered is not counted)",
                          plan.fixed_bytes - scaled(state + grads + params, kept_away),
                          plan.per_sample_bytes));
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
  return saturating_add(row.fixed_bytes, saturating_mul(row.per_sample_bytes, batch));
}

Result<MemoryPlan> plan_memory(const PlanMeasurement& measured) {
  const PlanMeasurement& m = measured;
  if (m.batch_a <= 0 || m.batch_b <= m.batch_a) {
    return make_error(ErrorKind::kBadOption,
                      fmt::format("the two measured batch sizes must grow (got {} then {})",
                                  m.batch_a, m.batch_b));
  }
  if (m.parameter_bytes < 0 || m.gradient_bytes < 0 || m.optimizer_state_bytes < 0 ||
      m.peak_a <= 0 || m.peak_b <= 0 || m.capacity_bytes <= 0 || m.parameter_count < 0) {
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
  plan.other_fixed_bytes =
      plan.fixed_bytes - m.parameter_bytes - m.gradient_bytes - m.optimizer_state_bytes;
  const std::int64_t per_sample = plan.per_sample_bytes;
  const std::int64_t fixed = plan.fixed_bytes;
  plan.rows.push_back(row(plan,
                          "current (" + (m.optimizer.empty() ? "measured" : m.optimizer) + ")",
                          "measured at two batch sizes; linear in the batch", fixed, per_sample));
  const std::int64_t autocast_activations = scaled(per_sample, kAutocastActivationFactor);
  plan.rows.push_back(row(plan, "bf16 autocast",
                          "activations halve; a bf16 copy of the weights is cached for the "
                          "forward pass",
                          fixed + m.parameter_bytes / 2, autocast_activations));
  plan.rows.push_back(row(plan, "bf16 weights + fp32 master copy",
                          "bf16 weights and gradients, fp32 master weights, activations halve",
                          fixed + m.parameter_bytes / 2 - m.gradient_bytes / 2,
                          autocast_activations));
  // With two blocks, keeping the inputs of both and recomputing one saves nothing in this model.
  if (m.repeated_blocks >= 3) {
    const auto n = static_cast<double>(m.repeated_blocks);
    plan.rows.push_back(row(plan, fmt::format("checkpoint every block ({})", m.repeated_blocks),
                            "rough: one block's activations recomputed in backward plus the "
                            "saved block inputs, counted as one more block",
                            fixed, scaled(per_sample, 2.0 / n)));
    if (m.repeated_blocks >= 4) {
      plan.rows.push_back(row(plan, "checkpoint every second block",
                              "rough: half the blocks keep their activations", fixed,
                              scaled(per_sample, 0.5 + 1.0 / n)));
    }
  }
  add_optimizer_rows(plan);
  add_sharding_rows(plan);
  if (m.repeated_blocks >= 3) {
    const auto n = static_cast<double>(m.repeated_blocks);
    plan.rows.push_back(row(plan, "bf16 autocast + checkpoint every block",
                            "both of the rows above", fixed + m.parameter_bytes / 2,
                            scaled(per_sample, kAutocastActivationFactor * 2.0 / n)));
  }
  return plan;
}

std::string render_plan_text(const MemoryPlan& plan) {
  const PlanMeasurement& m = plan.measured;
  std::string out = fmt::format(
      "Memory plan (every figure estimated from a linear model of the peak in the batch size)\n"
      "  measured: parameters {} ({} values), gradients {}, optimizer state {}; peak {} at batch "
      "{}, {} at batch {}\n"
      "  model: {} fixed ({} beyond parameters, gradients and state) + {} per sample; capacity {} "
      "with {} kept free\n",
      render::format_bytes(m.parameter_bytes),
      render::format_count(
          static_cast<std::uint64_t>(std::max<std::int64_t>(m.parameter_count, 0))),
      render::format_bytes(m.gradient_bytes), render::format_bytes(m.optimizer_state_bytes),
      render::format_bytes(m.peak_a), m.batch_a, render::format_bytes(m.peak_b), m.batch_b,
      render::format_bytes(plan.fixed_bytes), render::format_bytes(plan.other_fixed_bytes),
      render::format_bytes(plan.per_sample_bytes), render::format_bytes(m.capacity_bytes),
      render::format_percent(m.safety_margin));
  render::TextTable table;
  table.add_column("technique (estimated)", true);
  table.add_column(fmt::format("peak at batch {}", m.batch_b));
  table.add_column("per sample");
  table.add_column("largest batch");
  table.add_column("assumption", true);
  for (const PlanRow& r : plan.rows) {
    table.add_row({render::printable(r.technique, 50), render::format_bytes(r.predicted_peak_bytes),
                   render::format_bytes(r.per_sample_bytes),
                   r.largest_batch < 0 ? std::string("unbounded") : std::to_string(r.largest_batch),
                   render::printable(r.assumption, 120)});
  }
  return out + table.render("  ");
}

}  // namespace stepscope::memory
