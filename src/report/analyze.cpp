#include <chrono>

#include "report/report_model.h"

namespace stepscope {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RankAnalyses analyze_rank(const Trace& trace, const AnalysisOptions& options) {
  RankAnalyses rank{.trace = TraceRef(trace)};
  rank.options = options;
  rank.steps = find_steps(trace, options);
  rank.step_time = step_time_statistics(rank.steps);
  rank.step_breakdown = compute_step_breakdown(trace, rank.steps, options);
  rank.phases = compute_phases(trace, rank.steps, options);
  rank.gpu_metrics = compute_gpu_metrics(trace, rank.steps, options);
  rank.gpu_temporal = compute_gpu_temporal(trace, rank.steps, options);
  rank.kernels = compute_kernel_breakdown(trace, rank.steps, options);
  rank.idle = compute_idle_time(trace, rank.steps, options);
  rank.bandwidth = compute_collective_bandwidth(trace, rank.steps, options);
  rank.launches = compute_launches(trace, rank.steps, options);
  rank.queue_length = compute_queue_length(trace, rank.steps, options);
  rank.operators = compute_operators(trace, rank.steps, options);
  rank.memory = compute_memory_curve(trace, rank.steps, options.top);
  rank.busy_timeline = compute_busy_timeline(trace, rank.steps);
  return rank;
}

void ReportDeleter::operator()(Report* report) const { delete report; }

Result<ReportPtr> analyze(const AnalyzeRequest& request) {
  ReportPtr report(new Report);
  report->request = request;
  const auto load_start = std::chrono::steady_clock::now();
  STEPSCOPE_ASSIGN_OR_RETURN(report->traces, load_traces(request.path, request.load));
  report->load_seconds = seconds_since(load_start);
  const auto analysis_start = std::chrono::steady_clock::now();
  for (const Trace& trace : report->traces.ranks) {
    RankReport rank{analyze_rank(trace, request.analysis), {}};
    rank.diagnosis = diagnose(rank.analyses);
    report->ranks.push_back(std::move(rank));
  }
  if (request.analysis.mode == Mode::kCompatHta) {
    report->hta = hta::compute_hta_report(report->traces, request.analysis);
  }
  report->analysis_seconds = seconds_since(analysis_start);
  return report;
}

}  // namespace stepscope
