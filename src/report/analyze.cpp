#include <chrono>

#include "report/report_model.h"
#include "report/step_selection.h"
#include "stepscope/analysis/catalogue.h"

namespace stepscope {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

RankAnalyses analyze_rank(const Trace& trace, const AnalysisOptions& options) {
  RankAnalyses rank;
  rank.trace = &trace;
  rank.options = options;
  for (const AnalysisDescription& analysis : analysis_catalogue()) analysis.compute(rank);
  return rank;
}

void ReportDeleter::operator()(Report* report) const { delete report; }

Result<ReportPtr> analyze(const AnalyzeRequest& request) {
  ReportPtr report(new Report);
  report->request = request;
  const auto load_start = std::chrono::steady_clock::now();
  Result<TraceSet> traces = load_traces(request.path, request.load);
  if (!traces) return std::move(traces).error();
  report->traces = std::move(traces).value();
  report->load_seconds = seconds_since(load_start);
  const auto analysis_start = std::chrono::steady_clock::now();
  for (const Trace& trace : report->traces.ranks) {
    RankReport rank{analyze_rank(trace, request.analysis), {}};
    if (Status s = check_step_selection(rank.analyses.steps, request.analysis); !s) {
      Error error = std::move(s).error();
      error.file = trace.source_path;
      return error;
    }
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
