// Every analysis result of one rank, computed once and read by the diagnosis and the renderers.
#pragma once

#include "stepscope/analysis/busy_timeline.h"
#include "stepscope/analysis/code_location.h"
#include "stepscope/analysis/collective_bandwidth.h"
#include "stepscope/analysis/compute_efficiency.h"
#include "stepscope/analysis/gpu_metrics.h"
#include "stepscope/analysis/gpu_temporal.h"
#include "stepscope/analysis/idle_attribution.h"
#include "stepscope/analysis/idle_time.h"
#include "stepscope/analysis/kernel_breakdown.h"
#include "stepscope/analysis/launches.h"
#include "stepscope/analysis/memory_curve.h"
#include "stepscope/analysis/memory_headroom.h"
#include "stepscope/analysis/module_view.h"
#include "stepscope/analysis/operators.h"
#include "stepscope/analysis/phases.h"
#include "stepscope/analysis/queue_length.h"
#include "stepscope/analysis/step_breakdown.h"
#include "stepscope/analysis/step_model.h"
#include "stepscope/analysis/steps.h"
#include "stepscope/analysis/what_if.h"
#include "stepscope/trace.h"

namespace stepscope {

// A borrowed, never-null reference to a Trace. The type says what a raw pointer did not: the
// holder does not own the Trace, which must outlive it (Report owns both, the traces first).
// Built only from an lvalue, so a temporary Trace fails to compile rather than dangle.
class TraceRef {
 public:
  explicit TraceRef(const Trace& trace) : trace_(&trace) {}
  explicit TraceRef(const Trace&& trace) = delete;
  [[nodiscard]] const Trace& get() const { return *trace_; }
  const Trace& operator*() const { return *trace_; }
  const Trace* operator->() const { return trace_; }

 private:
  const Trace* trace_;  // never null
};

struct RankAnalyses {
  explicit RankAnalyses(const Trace& analysed) : trace(analysed) {}
  explicit RankAnalyses(const Trace&& analysed) = delete;

  TraceRef trace;  // the analysed trace, borrowed: see TraceRef
  AnalysisOptions options;
  StepsResult steps;
  StepTimeStats step_time;
  StepBreakdownResult step_breakdown;
  PhasesResult phases;
  GpuMetricsResult gpu_metrics;
  GpuTemporalResult gpu_temporal;
  KernelBreakdownResult kernels;
  IdleTimeResult idle;
  IdleAttributionResult idle_attribution;  // one cause per GPU idle moment, for the rules
  CollectiveBandwidthResult bandwidth;
  LaunchesResult launches;
  QueueLengthResult queue_length;
  OperatorsResult operators;
  MemoryCurveResult memory;
  MemoryHeadroomResult memory_headroom;  // GPUs with a known total memory
  BusyTimelineResult busy_timeline;
  CodeContext code;  // Python frames and nn.Modules around each event (empty without them)
  ModuleViewResult modules;
  ComputeEfficiencyResult compute_efficiency;
  StepModels step_models;  // the kept steps as graphs, for the critical path and the what-ifs
  CriticalPathResult critical_path;
};

// Runs every analysis on one rank. The result borrows `trace` (see TraceRef): keep the trace
// alive while the result is read.
RankAnalyses analyze_rank(const Trace& trace, const AnalysisOptions& options);
// A temporary trace would die before its analyses are read: keep it in a variable.
RankAnalyses analyze_rank(const Trace&& trace, const AnalysisOptions& options) = delete;

}  // namespace stepscope
