// Scaling across runs: the same job at several world sizes, throughput per rank against the
// smallest run (weak scaling: each rank does the same work per step).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepscope/job/job_analysis.h"

namespace stepscope::job {

struct RunScalingRow {
  std::string name;
  std::int64_t world_size = kAbsent;  // from the traces, else the ranks analysed
  double step_ns = 0;                 // the job's step: median over ranks of their p50
  double steps_per_second = 0;        // per rank
  double efficiency = 0;              // steps_per_second / the smallest run's
};

// `jobs[i]` is the job analysis of run `names[i]`; rows come sorted by world size.
std::vector<RunScalingRow> compare_runs_scaling(const std::vector<std::string>& names,
                                                const std::vector<JobAnalysis>& jobs);
std::string render_scaling_text(const std::vector<RunScalingRow>& rows);

}  // namespace stepscope::job
