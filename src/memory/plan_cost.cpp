// The memory planner's step-time arithmetic (memory/plan_cost.h).
#include "memory/plan_cost.h"

#include <algorithm>

namespace stepscope::memory {

double collective_bus_bytes(std::int64_t bytes, int gpus) {
  if (gpus <= 1 || bytes <= 0) return 0;
  return static_cast<double>(bytes) * static_cast<double>(gpus - 1) / static_cast<double>(gpus);
}

double zero_bus_bytes_per_step(int stage, int gpus, std::int64_t parameter_bytes,
                               std::int64_t gradient_bytes) {
  const double gather = collective_bus_bytes(parameter_bytes, gpus);
  const double scatter = collective_bus_bytes(gradient_bytes, gpus);
  return stage >= 3 ? 2 * gather + scatter : gather + scatter;
}

double transfer_ms(double bus_bytes, double gbps) {
  if (gbps <= 0) return 0;
  return bus_bytes / (gbps * 1e9) * 1e3;
}

double optimizer_bytes_touched(double state_bytes_per_parameter) {
  constexpr double kWeightReadAndWrite = 8;
  constexpr double kGradientRead = 4;
  return kWeightReadAndWrite + kGradientRead + 2 * state_bytes_per_parameter;
}

LinearTime fit_linear_time(std::int64_t batch_a, double ms_a, std::int64_t batch_b, double ms_b) {
  if (batch_b <= batch_a || batch_a <= 0) return {};
  LinearTime t;
  t.per_sample_ms = std::max(0.0, (ms_b - ms_a) / static_cast<double>(batch_b - batch_a));
  t.fixed_ms = ms_a - t.per_sample_ms * static_cast<double>(batch_a);
  if (t.fixed_ms < 0) {
    t.fixed_ms = 0;
    t.per_sample_ms = ms_b / static_cast<double>(batch_b);
  }
  return t;
}

Accumulation accumulation_for(std::int64_t effective, std::int64_t largest_fitting) {
  if (effective <= 0 || largest_fitting == 0) return {};
  const std::int64_t micro = largest_fitting < 0 ? effective : std::min(effective, largest_fitting);
  return {micro, (effective + micro - 1) / micro};
}

}  // namespace stepscope::memory
