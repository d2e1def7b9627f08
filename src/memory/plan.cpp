// The memory planner's arithmetic (stepscope/memory/plan.h).
#include "stepscope/memory/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "memory/measurement_json.h"
#include "memory/plan_cost.h"
#include "render/json_writer.h"
#include "render/text_format.h"
#include "trace/saturating.h"

namespace stepscope::memory {

namespace {

// bf16 halves what autograd saves for backward; the fp32 weights stay, and autocast keeps a
// bf16 copy of each weight it casts for the forward pass.
constexpr double kAutocastActivationFactor = 0.5;
constexpr double kNotEstimated = std::numeric_limits<double>::quiet_NaN();
constexpr double kMiBytes = 1024.0 * 1024.0;
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 44;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 18;

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

// A row's step-time cost: milliseconds per step (NaN: not estimated) and what it rests on.
struct Cost {
  double ms = kNotEstimated;
  std::string basis;
};

PlanRow row(const MemoryPlan& plan, std::string technique, std::string assumption, Setting setting,
            Cost cost) {
  const PlanMeasurement& m = plan.measured;
  PlanRow r;
  r.technique = std::move(technique);
  r.assumption = std::move(assumption);
  r.fixed_bytes = setting.fixed;
  r.per_sample_bytes = setting.per_sample;
  r.optimizer_peak_bytes = setting.optimizer_peak;
  r.batch = m.batch_b;
  r.predicted_peak_bytes = predicted_peak(r, m.batch_b);
  r.largest_batch = largest_batch(r, m.capacity_bytes, m.safety_margin);
  const double step_ms = m.timing_b.total_ms();
  if (!m.timing_b.measured()) {
    cost = {kNotEstimated, "not estimated: the steps were not timed"};
  }
  r.cost_ms = cost.ms;
  r.cost_share = std::isfinite(cost.ms) && step_ms > 0 ? cost.ms / step_ms : kNotEstimated;
  r.cost_basis = std::move(cost.basis);
  return r;
}

Cost current_cost(const PlanMeasurement& m) {
  const StepTiming& t = m.timing_b;
  return {0.0, fmt::format("measured at batch {}: forward {:.3f} ms, backward {:.3f} ms, "
                           "optimizer step {:.3f} ms",
                           m.batch_b, t.forward_ms, t.backward_ms, t.optimizer_ms)};
}

Cost autocast_cost(const PlanMeasurement& m) {
  if (m.device == "cuda") {
    return {kNotEstimated,
            "not estimated: faster on tensor-core GPUs (bf16 matmuls), by how much only a "
            "measured run shows"};
  }
  return {kNotEstimated,
          "not estimated on the CPU: faster on tensor-core GPUs; on a CPU without bf16 units "
          "often slower"};
}

// Recomputing the wrapped blocks' forward in backward: their measured forward time, all of it
// (every block) or `share` of it.
Cost checkpoint_cost(const PlanMeasurement& m, double share) {
  const double blocks_ms = m.timing_b.blocks_forward_ms;
  if (blocks_ms <= 0) return {kNotEstimated, "not estimated: the blocks' forward was not timed"};
  return {blocks_ms * share,
          fmt::format("recompute ≈ {:.0f} % of the {} blocks' forward, {:.3f} ms measured at "
                      "batch {}",
                      share * 100, m.repeated_blocks, blocks_ms, m.batch_b)};
}

// The optimizer step scaled by the bytes it reads and writes per parameter.
Cost optimizer_cost(const PlanMeasurement& m, const OptimizerChoice& choice) {
  if (m.parameter_count <= 0) return {kNotEstimated, "not estimated: no parameters counted"};
  const double measured_state =
      static_cast<double>(m.optimizer_state_bytes) / static_cast<double>(m.parameter_count);
  const double before = optimizer_bytes_touched(measured_state);
  const double after = optimizer_bytes_touched(choice.state_bytes_per_parameter);
  return {m.timing_b.optimizer_ms * (after / before - 1.0),
          fmt::format("estimate: the measured optimizer step ({:.3f} ms) scaled by bytes "
                      "touched per parameter, {:.1f} -> {:.1f}",
                      m.timing_b.optimizer_ms, before, after)};
}

Cost sharding_cost(const PlanMeasurement& m, int stage) {
  const double bus = zero_bus_bytes_per_step(stage, m.shards, m.parameter_bytes, m.gradient_bytes);
  return {transfer_ms(bus, m.link_gbps),
          fmt::format("estimate: {:.2f} MiB per GPU per step ({}) at {:.0f} GB/s bus bandwidth "
                      "(nccl-tests busbw), not overlapped with compute",
                      bus / kMiBytes,
                      stage >= 3 ? "all-gather of the parameters twice, reduce-scatter of the "
                                   "gradients"
                                 : "reduce-scatter of the gradients, all-gather of the "
                                   "parameters: what data-parallel all-reduce moves too",
                      m.link_gbps)};
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
                 state + temporary},
            optimizer_cost(m, choice)));
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
                          "optimizer state split over the GPUs", sharded(state),
                          sharding_cost(m, 1)));
  plan.rows.push_back(row(plan, fmt::format("ZeRO-2 over {} GPUs", m.shards),
                          "optimizer state and gradients split over the GPUs",
                          sharded(state + grads), sharding_cost(m, 2)));
  plan.rows.push_back(row(plan, fmt::format("ZeRO-3 / FSDP over {} GPUs", m.shards),
                          "parameters, gradients and optimizer state split over the GPUs (the "
                          "layer being gathered is not counted)",
                          sharded(state + grads + params), sharding_cost(m, 3)));
}

// The effective batch in micro-batches of the largest that fits with the current setting: the
// same samples in `steps` forward+backward passes and one optimizer step. Its cost is the
// fixed part of forward+backward paid once per extra micro-step (time linear in the batch,
// fitted through the two timed batches).
void add_accumulation_row(MemoryPlan& plan, const Setting& current) {
  const PlanMeasurement& m = plan.measured;
  const std::int64_t effective = m.effective_batch > 0 ? m.effective_batch : m.batch_b;
  const std::int64_t fitting = plan.rows.front().largest_batch;
  const Accumulation acc = accumulation_for(effective, fitting);
  PlanRow r = row(plan,
                  acc.steps == 0
                      ? fmt::format("gradient accumulation to {}: no micro-batch fits", effective)
                      : fmt::format("gradient accumulation {} x {} (effective {})", acc.steps,
                                    acc.micro_batch, effective),
                  "the largest micro-batch that fits with the margin, ceil(effective / micro) "
                  "micro-steps, one optimizer step",
                  current, {});
  r.batch = std::max<std::int64_t>(acc.micro_batch, 1);
  r.predicted_peak_bytes = predicted_peak(r, r.batch);
  r.largest_batch = fitting;
  r.accumulation_steps = acc.steps;
  const StepTiming& a = m.timing_a;
  const StepTiming& b = m.timing_b;
  if (acc.steps == 0) {
    r.cost_ms = r.cost_share = kNotEstimated;
    r.cost_basis = "not estimated: not even one sample fits";
  } else if (a.measured() && b.measured()) {
    const LinearTime pass = fit_linear_time(m.batch_a, a.forward_ms + a.backward_ms, m.batch_b,
                                            b.forward_ms + b.backward_ms);
    const double one_step_ms = pass.at(effective) + b.optimizer_ms;
    r.cost_ms = static_cast<double>(acc.steps - 1) * pass.fixed_ms;
    r.cost_share = one_step_ms > 0 ? r.cost_ms / one_step_ms : kNotEstimated;
    r.cost_basis = fmt::format(
        "estimate, per effective step: forward+backward {:.3f} ms fixed + {:.3f} ms per sample "
        "(fitted through batches {} and {}), the fixed part paid {} times; optimizer step "
        "{:.3f} ms once; % of one step of {} if it fitted",
        pass.fixed_ms, pass.per_sample_ms, m.batch_a, m.batch_b, acc.steps, b.optimizer_ms,
        effective);
  }
  plan.rows.push_back(std::move(r));
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
  // Limits far beyond any device or batch, that keep bytes x batch inside int64: a
  // measurement read from a file cannot make the arithmetic overflow.
  for (std::int64_t bytes :
       {m.parameter_count, m.parameter_bytes, m.gradient_bytes, m.optimizer_state_bytes, m.peak_a,
        m.peak_b, m.optimizer_peak, m.capacity_bytes}) {
    if (bytes > kMaxBytes) {
      return make_error(ErrorKind::kBadOption,
                        "a measured byte or parameter count exceeds 16 TiB (2^44)");
    }
  }
  if (m.batch_b > kMaxBatch || m.repeated_blocks > kMaxBatch || m.repeated_blocks < 0) {
    return make_error(ErrorKind::kBadOption,
                      "the measured batch sizes and block count must be at most 2^18");
  }
  if (!(m.safety_margin >= 0 && m.safety_margin < 1) || m.shards < 1) {
    return make_error(ErrorKind::kBadOption, "the safety margin must be in [0, 1), shards >= 1");
  }
  if (m.effective_batch < 0 || !(m.link_gbps > 0 && std::isfinite(m.link_gbps))) {
    return make_error(ErrorKind::kBadOption,
                      "the effective batch must be >= 0 and the link bandwidth > 0 GB/s");
  }
  for (const StepTiming* t : {&m.timing_a, &m.timing_b}) {
    for (double ms : {t->forward_ms, t->backward_ms, t->optimizer_ms, t->blocks_forward_ms}) {
      if (!(ms >= 0 && std::isfinite(ms))) {
        return make_error(ErrorKind::kBadOption, "the measured times must be finite and >= 0");
      }
    }
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
          current, current_cost(m)));
  plan.rows.push_back(row(plan, "bf16 autocast",
                          "activations halve; a bf16 copy of the weights is cached for the "
                          "forward pass",
                          {current.fixed + p / 2, half_activations, current.optimizer_peak},
                          autocast_cost(m)));
  plan.rows.push_back(row(plan, "bf16 weights + fp32 master copy",
                          "bf16 weights and gradients, fp32 master weights, activations halve",
                          {current.fixed + p / 2, half_activations,
                           current.optimizer_peak + p / 2 - m.gradient_bytes / 2},
                          autocast_cost(m)));
  // With two blocks, keeping the inputs of both and recomputing one saves nothing in this model.
  if (m.repeated_blocks >= 3) {
    const auto n = static_cast<double>(m.repeated_blocks);
    plan.rows.push_back(
        row(plan, fmt::format("checkpoint every block ({})", m.repeated_blocks),
            "rough: one block's activations recomputed in backward plus the "
            "saved block inputs, counted as one more block",
            {current.fixed, scaled(current.per_sample, 2.0 / n), current.optimizer_peak},
            checkpoint_cost(m, 1.0)));
    if (m.repeated_blocks >= 4) {
      plan.rows.push_back(row(
          plan, "checkpoint every second block", "rough: half the blocks keep their activations",
          {current.fixed, scaled(current.per_sample, 0.5 + 1.0 / n), current.optimizer_peak},
          checkpoint_cost(m, 0.5)));
    }
  }
  add_optimizer_rows(plan, current);
  add_sharding_rows(plan, current);
  if (m.repeated_blocks >= 3) {
    const auto n = static_cast<double>(m.repeated_blocks);
    plan.rows.push_back(
        row(plan, "bf16 autocast + checkpoint every block", "both of the rows above",
            {current.fixed + p / 2, scaled(current.per_sample, kAutocastActivationFactor * 2.0 / n),
             current.optimizer_peak},
            {kNotEstimated, "not estimated: the bf16 part is not (see its row)"}));
  }
  add_accumulation_row(plan, current);
  if (m.repeated_blocks < 3) {
    plan.measured.notes.push_back(
        fmt::format("{} repeated blocks found (ModuleList / Sequential): checkpointing rows need 3",
                    m.repeated_blocks));
  }
  return plan;
}

namespace {

std::string format_cost_ms(double ms) {
  return std::isfinite(ms) ? fmt::format("{:+.3f} ms", ms) : std::string("not estimated");
}

std::string format_cost_share(double share) {
  return std::isfinite(share) ? fmt::format("{:+.1f} %", share * 100.0) : std::string("n/a");
}

std::string memory_table(const MemoryPlan& plan) {
  render::TextTable table;
  table.add_column("technique (estimated)", true);
  table.add_column("batch");
  table.add_column("peak");
  table.add_column("per sample");
  table.add_column("optimizer step");
  table.add_column("largest batch");
  table.add_column("step cost");
  table.add_column("of step");
  table.add_column("assumption", true);
  for (const PlanRow& r : plan.rows) {
    table.add_row({render::printable(r.technique, 50), std::to_string(r.batch),
                   render::format_bytes(r.predicted_peak_bytes),
                   render::format_bytes(r.per_sample_bytes),
                   render::format_bytes(r.optimizer_peak_bytes),
                   r.largest_batch < 0 ? std::string("unbounded") : std::to_string(r.largest_batch),
                   format_cost_ms(r.cost_ms), format_cost_share(r.cost_share),
                   render::printable(r.assumption, 120)});
  }
  return table.render("  ");
}

std::string cost_bases(const MemoryPlan& plan) {
  std::string out =
      "  step cost (ms per step, estimated unless 0 for the measured setting), "
      "what each rests on:\n";
  for (const PlanRow& r : plan.rows) {
    out += fmt::format("    {}: {}\n", render::printable(r.technique, 50),
                       render::printable(r.cost_basis, 300));
  }
  return out;
}

}  // namespace

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
  if (m.timing_b.measured()) {
    out += fmt::format(
        "  timed on {} ({}): step {:.3f} ms at batch {} (forward {:.3f}, backward {:.3f}, "
        "optimizer {:.3f} ms), {:.3f} ms at batch {}\n",
        render::printable(m.device, 10),
        m.device == "cuda" ? "synchronised wall time" : "perf_counter wall time",
        m.timing_b.total_ms(), m.batch_b, m.timing_b.forward_ms, m.timing_b.backward_ms,
        m.timing_b.optimizer_ms, m.timing_a.total_ms(), m.batch_a);
  }
  out += memory_table(plan) + cost_bases(plan);
  for (const std::string& note : m.notes) out += "note: " + render::printable(note, 400) + "\n";
  return out;
}

namespace {

void write_row(render::JsonWriter& json, const PlanRow& r) {
  json.begin_object();
  json.field("technique", r.technique);
  json.field("assumption", r.assumption);
  json.field("batch", r.batch);
  json.field("fixed_bytes", r.fixed_bytes);
  json.field("per_sample_bytes", r.per_sample_bytes);
  json.field("optimizer_peak_bytes", r.optimizer_peak_bytes);
  json.field("predicted_peak_bytes", r.predicted_peak_bytes);
  json.field("largest_batch", r.largest_batch);
  json.field("step_cost_ms", r.cost_ms);  // null: not estimated
  json.field("step_cost_share", r.cost_share);
  json.field("cost_basis", r.cost_basis);
  json.field("accumulation_steps", r.accumulation_steps);
  json.end_object();
}

}  // namespace

std::string render_plan_json(const MemoryPlan& plan) {
  const PlanMeasurement& m = plan.measured;
  render::JsonWriter json;
  json.begin_object();
  json.field("schema", "stepscope.memory_plan");
  json.field("schema_version", 1);
  json.field("estimated", true);
  json.key("options");
  json.begin_object();
  json.field("shards", m.shards);
  json.field("safety_margin", m.safety_margin);
  json.field("effective_batch", m.effective_batch > 0 ? m.effective_batch : m.batch_b);
  json.field("link_gbps", m.link_gbps);
  json.end_object();
  json.key("measured");
  json.begin_object();
  write_measurement_fields(json, m);
  json.end_object();
  json.key("model");
  json.begin_object();
  json.field("fixed_bytes", plan.fixed_bytes);
  json.field("per_sample_bytes", plan.per_sample_bytes);
  json.field("other_fixed_bytes", plan.other_fixed_bytes);
  json.field("optimizer_temporary_bytes", plan.optimizer_temporary_bytes);
  json.end_object();
  json.key("rows");
  json.begin_array();
  for (const PlanRow& r : plan.rows) write_row(json, r);
  json.end_array();
  json.key("notes");
  json.begin_array();
  for (const std::string& note : m.notes) json.value(note);
  json.end_array();
  json.end_object();
  return json.take() + "\n";
}

}  // namespace stepscope::memory
