// The memory planner's step-time arithmetic: what each technique adds to a training step,
// estimated from the measured forward, backward and optimizer times. Each function is one rule
// of thumb, stated where it is defined; plan.cpp says which measured figures each row rests on.
#pragma once

#include <cstdint>

namespace stepscope::memory {

// Bus bytes one GPU moves in an all-gather or a reduce-scatter of `bytes` over `gpus` GPUs, in
// the nccl-tests convention: (gpus - 1) / gpus of the buffer.
[[nodiscard]] double collective_bus_bytes(std::int64_t bytes, int gpus);

// Bus bytes per GPU per training step that ZeRO stage 1, 2 or 3 (FSDP) communicates, from the
// parameter and gradient bytes. Stages 1 and 2: one reduce-scatter of the gradients and one
// all-gather of the updated parameters (what data-parallel all-reduce also moves). Stage 3:
// the parameters are gathered twice, for forward and for backward, plus the reduce-scatter.
[[nodiscard]] double zero_bus_bytes_per_step(int stage, int gpus, std::int64_t parameter_bytes,
                                             std::int64_t gradient_bytes);

// Milliseconds to move `bus_bytes` at `gbps` GB/s (1e9 bytes per second), nothing overlapped.
[[nodiscard]] double transfer_ms(double bus_bytes, double gbps);

// Bytes an element-wise optimizer step reads and writes per parameter: the fp32 weight read and
// written, the gradient read, and each byte of state read and written. Its time is assumed
// proportional (the step is memory-bound).
[[nodiscard]] double optimizer_bytes_touched(double state_bytes_per_parameter);

// A time linear in the batch: fixed + per_sample * batch, fitted through two measured points.
// A negative intercept (noise) is clamped to zero with the slope through the larger point.
struct LinearTime {
  double fixed_ms = 0;
  double per_sample_ms = 0;
  [[nodiscard]] double at(std::int64_t batch) const {
    return fixed_ms + per_sample_ms * static_cast<double>(batch);
  }
};
[[nodiscard]] LinearTime fit_linear_time(std::int64_t batch_a, double ms_a, std::int64_t batch_b,
                                         double ms_b);

// Gradient accumulation for `effective` samples when at most `largest_fitting` fit in one step
// (-1: no bound): the micro-batch and the number of micro-steps, ceil(effective / micro).
// {0, 0} when not even one sample fits.
struct Accumulation {
  std::int64_t micro_batch = 0;
  std::int64_t steps = 0;
};
[[nodiscard]] Accumulation accumulation_for(std::int64_t effective, std::int64_t largest_fitting);

}  // namespace stepscope::memory
