// What `analyze` produces: the loaded traces and, per rank, every analysis result. Renderers
// read this; they compute nothing.
#pragma once

#include <string>
#include <vector>

#include "stepscope/analysis/gpu_metrics.h"
#include "stepscope/analysis/phases.h"
#include "stepscope/analysis/step_breakdown.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/load.h"
#include "stepscope/report.h"

namespace stepscope {

struct RankReport {
  const Trace* trace = nullptr;  // owned by Report::traces
  StepsResult steps;
  StepTimeStats step_time;
  StepBreakdownResult step_breakdown;
  PhasesResult phases;
  GpuMetricsResult gpu_metrics;
};

struct Report {
  AnalyzeRequest request;
  TraceSet traces;
  std::vector<RankReport> ranks;
  double load_seconds = 0;
  double analysis_seconds = 0;
};

}  // namespace stepscope
