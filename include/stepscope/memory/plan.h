// The memory planner's arithmetic: from what one training step was measured to hold (parameters,
// gradients, optimizer state, and the peak at two batch sizes, whose difference is the
// activation memory per sample) and the device's capacity, the predicted peak of each technique
// alone and combined and the largest batch that fits each with a safety margin. Every figure it
// returns is an estimate from a linear model of the peak in the batch size; the inputs it rests
// on travel with it. The measuring lives in Python (stepscope.torch.memory_plan).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/error.h"

namespace stepscope::memory {

// The sharding rows' communication time assumes this bus bandwidth (GB/s = 1e9 bytes/s, the
// nccl-tests "busbw" convention) unless told otherwise: below NVLink on an H100 (~350 GB/s
// all-gather busbw), well above PCIe or a single 100 Gb/s network link (12.5 GB/s).
inline constexpr double kDefaultLinkGBps = 100.0;

// Wall time of one training step's parts, in milliseconds (synchronised on a GPU, after a
// warm-up). 0 everywhere: not timed, and no cost is estimated.
struct StepTiming {
  double forward_ms = 0;
  double backward_ms = 0;  // loss and backward
  double optimizer_ms = 0;
  double blocks_forward_ms = 0;  // inside the repeated blocks' forward (checkpointing recomputes)
  [[nodiscard]] double total_ms() const { return forward_ms + backward_ms + optimizer_ms; }
  [[nodiscard]] bool measured() const { return total_ms() > 0; }
};

struct PlanMeasurement {
  std::int64_t parameter_count = 0;
  std::int64_t parameter_bytes = 0;
  std::int64_t gradient_bytes = 0;
  std::int64_t optimizer_state_bytes = 0;
  std::string optimizer;  // "AdamW", "SGD", ...: for the label of the current setting
  // Peak of forward and backward at two batch sizes (batch_a < batch_b), after a warm-up step so
  // that optimizer state exists.
  std::int64_t batch_a = 0;
  std::int64_t peak_a = 0;
  std::int64_t batch_b = 0;
  std::int64_t peak_b = 0;
  // Peak of optimizer.step(), which does not grow with the batch: parameters, gradients, state
  // and the step's temporaries. 0: not measured (the temporaries then come from the table).
  std::int64_t optimizer_peak = 0;
  std::int64_t capacity_bytes = 0;   // the device (or, on the CPU, the memory available)
  std::int64_t repeated_blocks = 0;  // blocks activation checkpointing would wrap; 0: none found
  std::string device = "cpu";        // "cpu" or "cuda": where the steps ran (for the costs)
  std::vector<std::string> notes;    // how the figures were measured, shown under the table
  StepTiming timing_a;               // timed steps at batch_a and batch_b (not under the profiler)
  StepTiming timing_b;
  // Options of the plan, not measured: ZeRO / FSDP rows, the margin kept free, the effective
  // batch of the accumulation row (0: batch_b) and the link bandwidth for the sharding costs.
  int shards = 1;
  double safety_margin = 0.10;
  std::int64_t effective_batch = 0;
  double link_gbps = kDefaultLinkGBps;
};

// One setting's estimate. Forward and backward peak at fixed + per_sample * batch; the
// optimizer step at optimizer_peak; the step's peak is the larger.
struct PlanRow {
  std::string technique;         // "current", "bf16 autocast", "ZeRO-3 / FSDP over 8 GPUs", ...
  std::string assumption;        // how the estimate was made, one line
  std::int64_t fixed_bytes = 0;  // estimated: forward/backward without the batch
  std::int64_t per_sample_bytes = 0;      // estimated: activations per sample
  std::int64_t optimizer_peak_bytes = 0;  // estimated: the optimizer step's peak
  std::int64_t batch = 0;                 // the batch of predicted_peak_bytes: batch_b, or the
                                          // accumulation row's micro-batch
  std::int64_t predicted_peak_bytes = 0;  // estimated, at `batch`
  std::int64_t largest_batch = 0;         // estimated: fits capacity * (1 - margin); 0: none fits
  // Step time it adds (negative: saves), estimated, per step of batch_b (the accumulation row:
  // per step of the effective batch). NaN: not estimated; cost_basis then says why.
  double cost_ms = 0;
  double cost_share = 0;   // of the measured step (the accumulation row: of one effective step)
  std::string cost_basis;  // the measured figures the cost rests on, or why there is none
  std::int64_t accumulation_steps = 0;  // the accumulation row: micro-steps per effective batch
};

struct MemoryPlan {
  PlanMeasurement measured;
  // The linear model of the measured forward and backward: peak = fixed + per_sample * batch.
  std::int64_t fixed_bytes = 0;
  std::int64_t per_sample_bytes = 0;
  std::int64_t other_fixed_bytes = 0;  // fixed minus parameters and optimizer state
  // The measured optimizer's step temporaries: its peak minus parameters, gradients and state
  // (from the table when that peak was not measured).
  std::int64_t optimizer_temporary_bytes = 0;
  std::vector<PlanRow> rows;  // the current setting first, then each technique
};

// An optimizer's memory per parameter (fp32 parameters): the state it keeps across steps, and
// the temporaries its step allocates (the multi-tensor AdamW step makes one sqrt(v) copy).
struct OptimizerChoice {
  std::string name;
  double state_bytes_per_parameter = 0;
  double step_temporary_bytes_per_parameter = 0;
};
// AdamW (8 + 4), Adam 8-bit (2 + 4), SGD momentum (4 + 0), SGD (0 + 0), Adafactor (factored
// second moments, ~0 for matrices, counted as 0.1; its update is one full-size temporary, 4).
const std::vector<OptimizerChoice>& optimizer_choices();

// Fails (bad_option) on measurements the model cannot use: batch_b <= batch_a, negative bytes.
Result<MemoryPlan> plan_memory(const PlanMeasurement& measured);

// The predicted peak of a setting at `batch` (estimated): the larger of forward/backward and
// the optimizer step.
[[nodiscard]] std::int64_t predicted_peak(const PlanRow& row, std::int64_t batch);

// The table for a terminal: one row per technique, every figure marked estimated.
std::string render_plan_text(const MemoryPlan& plan);
// The same plan as JSON (schema "stepscope.memory_plan", docs/memory-plan.md).
std::string render_plan_json(const MemoryPlan& plan);

}  // namespace stepscope::memory
