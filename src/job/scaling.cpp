// Scaling efficiency within a job: the step the job would take if no rank waited and every
// transfer were hidden behind computation, against the step it takes.
#include "job/job_internal.h"

namespace stepscope::job::detail {

Scaling scaling_efficiency(const std::vector<RankRow>& rows) {
  Scaling s;
  double ideal = 0;
  double actual = 0;
  int n = 0;
  for (const RankRow& row : rows) {
    if (row.steps == 0) continue;
    actual += row.step_p50_ns;
    ideal += std::max(0.0, row.step_p50_ns - row.wait_ns - row.exposed_comm_ns);
    ++n;
  }
  if (n == 0 || actual <= 0) return s;
  s.applicable = true;
  s.actual_step_ns = actual / n;
  s.ideal_step_ns = ideal / n;
  s.efficiency = s.ideal_step_ns / s.actual_step_ns;
  return s;
}

}  // namespace stepscope::job::detail
